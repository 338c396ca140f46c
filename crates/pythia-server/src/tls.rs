//! TLS for `pythia serve` (`--tls-cert`, `--tls-key`), with the cargo feature `tls`:
//! PostgreSQL's SSLRequest answered with rustls (pgwire's negotiation, its ring provider).
//! Without the feature the server is built without TLS: asking for it fails at start with a
//! message that says so, and clients that ask for TLS are told `N` and may go on in clear,
//! as a PostgreSQL server with `ssl = off` tells them.
//!
//! The certificate chain and the private key are PEM files, read once at start; a file that
//! is missing or holds no certificate or key fails the start. With TLS configured, a client
//! may still connect in clear (PostgreSQL's `sslmode=prefer` and `disable` both work):
//! requiring it is the client's choice, and with SCRAM-SHA-256 no password crosses the
//! network either way.

use std::io;
use std::path::PathBuf;

/// Where the server's certificate chain and private key are.
#[derive(Clone, Debug)]
pub struct TlsFiles {
    pub certificate_chain: PathBuf,
    pub private_key: PathBuf,
}

/// What pgwire's negotiation takes: an acceptor, or nothing (no TLS).
pub(crate) type Acceptor = Option<pgwire::tokio::TlsAcceptor>;

#[cfg(feature = "tls")]
pub(crate) fn acceptor(files: Option<&TlsFiles>) -> io::Result<Acceptor> {
    use std::sync::Arc;

    use pgwire::tokio::tokio_rustls::rustls;
    use rustls_pki_types::pem::PemObject;
    use rustls_pki_types::{CertificateDer, PrivateKeyDer};

    let Some(files) = files else {
        return Ok(None);
    };
    let invalid = |what: String| io::Error::new(io::ErrorKind::InvalidInput, what);
    let chain = CertificateDer::pem_file_iter(&files.certificate_chain)
        .and_then(|certificates| certificates.collect::<Result<Vec<_>, _>>())
        .map_err(|error| {
            invalid(format!(
                "--tls-cert {}: {error}",
                files.certificate_chain.display()
            ))
        })?;
    if chain.is_empty() {
        return Err(invalid(format!(
            "--tls-cert {}: no certificate in the file",
            files.certificate_chain.display()
        )));
    }
    let key = PrivateKeyDer::from_pem_file(&files.private_key).map_err(|error| {
        invalid(format!(
            "--tls-key {}: {error}",
            files.private_key.display()
        ))
    })?;
    let config = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|error| invalid(format!("--tls-cert / --tls-key: {error}")))?;
    Ok(Some(pgwire::tokio::TlsAcceptor::from(Arc::new(config))))
}

/// A connection's copy of the acceptor.
#[cfg(feature = "tls")]
pub(crate) fn for_connection(acceptor: &Acceptor) -> Acceptor {
    acceptor.clone()
}

/// Without TLS there is no acceptor to copy.
#[cfg(not(feature = "tls"))]
pub(crate) fn for_connection(_: &Acceptor) -> Acceptor {
    None
}

#[cfg(not(feature = "tls"))]
pub(crate) fn acceptor(files: Option<&TlsFiles>) -> io::Result<Acceptor> {
    match files {
        None => Ok(None),
        Some(_) => Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "this pythia was built without TLS: build it with `--features tls` (rustls over \
             ring) to use --tls-cert and --tls-key",
        )),
    }
}
