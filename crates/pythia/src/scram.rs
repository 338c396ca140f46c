//! SCRAM-SHA-256 (RFC 5802, RFC 7677): what a user's password becomes in the dictionary,
//! and the arithmetic that checks a client's proof against it.
//!
//! The password itself is never kept: `CREATE USER ... IDENTIFIED BY` and `ALTER USER`
//! store its *verifier*, in PostgreSQL's text form, so that a PostgreSQL client's
//! SCRAM-SHA-256 exchange checks against it unchanged:
//!
//! ```text
//!   SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>      (base64, standard, padded)
//!
//!   SaltedPassword := Hi(SASLprep(password), salt, iterations)      PBKDF2-HMAC-SHA-256, 32 bytes
//!   ClientKey      := HMAC(SaltedPassword, "Client Key")
//!   StoredKey      := SHA-256(ClientKey)
//!   ServerKey      := HMAC(SaltedPassword, "Server Key")
//! ```
//!
//! At logon the client proves it knows ClientKey without sending it:
//!
//! ```text
//!   ClientSignature := HMAC(StoredKey, AuthMessage)
//!   ClientProof     := ClientKey XOR ClientSignature                 (the client sends this)
//!   the server:        SHA-256(ClientProof XOR ClientSignature) == StoredKey ?  (constant time)
//!   ServerSignature := HMAC(ServerKey, AuthMessage)                  (proves the server knew
//!                                                                    the verifier)
//! ```
//!
//! Invariants: 1. a verifier's salt is [`SALT_BYTES`] random bytes from the operating
//! system (getrandom), its iteration count [`ITERATIONS`] (PostgreSQL's default); 2. a proof
//! is compared in constant time (`subtle`), so its timing tells nothing of the stored key;
//! 3. a verifier read back is bounded ([`SALT_BYTES_MAX`], [`ITERATIONS_MAX`]) and a
//! malformed one is refused, never half-used. The network side of the exchange (nonces, the
//! messages) is the server's (`pythia-server`'s `auth.rs`).

use std::fmt;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::error::{Error, Result};

/// The iteration count of new verifiers (PostgreSQL's `scram_iterations` default).
pub const ITERATIONS: u32 = 4096;
/// The fewest iterations RFC 7677 allows; a verifier with fewer is refused.
pub const ITERATIONS_MIN: u32 = 4096;
/// The most iterations a verifier read back may ask of a client (bounds a client's work).
pub const ITERATIONS_MAX: u32 = 1 << 20;
/// The salt of new verifiers (PostgreSQL's length).
pub const SALT_BYTES: usize = 16;
/// The longest salt a verifier read back may have.
pub const SALT_BYTES_MAX: usize = 64;
/// SHA-256's output: the keys' and the proofs' length.
pub const KEY_BYTES: usize = 32;
/// The name of the mechanism, as the SASL exchange and the verifier spell it.
pub const MECHANISM: &str = "SCRAM-SHA-256";

/// What the dictionary keeps of a password. Its `Debug` shows no key.
#[derive(Clone, PartialEq, Eq)]
pub struct Verifier {
    pub iterations: u32,
    pub salt: Vec<u8>,
    pub stored_key: [u8; KEY_BYTES],
    pub server_key: [u8; KEY_BYTES],
}

impl fmt::Debug for Verifier {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("Verifier")
            .field("iterations", &self.iterations)
            .field("salt", &STANDARD.encode(&self.salt))
            .finish_non_exhaustive()
    }
}

/// PostgreSQL's text form, which DICT$ keeps.
impl fmt::Display for Verifier {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "{MECHANISM}${}:{}${}:{}",
            self.iterations,
            STANDARD.encode(&self.salt),
            STANDARD.encode(self.stored_key),
            STANDARD.encode(self.server_key)
        )
    }
}

impl Verifier {
    /// The verifier of `password` with a new random salt and [`ITERATIONS`].
    pub fn new(password: &str) -> Result<Verifier> {
        let mut salt = vec![0; SALT_BYTES];
        random_bytes(&mut salt)?;
        Ok(Verifier::with_salt(password, &salt, ITERATIONS))
    }

    /// The verifier of `password` with this salt and iteration count.
    pub fn with_salt(password: &str, salt: &[u8], iterations: u32) -> Verifier {
        let salted = salted_password(password, salt, iterations);
        let client_key = hmac(&salted, b"Client Key");
        Verifier {
            iterations,
            salt: salt.to_vec(),
            stored_key: sha256(&client_key),
            server_key: hmac(&salted, b"Server Key"),
        }
    }

    /// Reads PostgreSQL's text form; None when it is not a well-formed SCRAM-SHA-256
    /// verifier within the bounds.
    pub fn parse(text: &str) -> Option<Verifier> {
        let rest = text.strip_prefix(MECHANISM)?.strip_prefix('$')?;
        let (parameters, keys) = rest.split_once('$')?;
        let (iterations, salt) = parameters.split_once(':')?;
        let (stored_key, server_key) = keys.split_once(':')?;
        let iterations: u32 = iterations.parse().ok()?;
        let salt = STANDARD.decode(salt).ok()?;
        let valid = (ITERATIONS_MIN..=ITERATIONS_MAX).contains(&iterations)
            && !salt.is_empty()
            && salt.len() <= SALT_BYTES_MAX;
        if !valid {
            return None;
        }
        Some(Verifier {
            iterations,
            salt,
            stored_key: STANDARD.decode(stored_key).ok()?.try_into().ok()?,
            server_key: STANDARD.decode(server_key).ok()?.try_into().ok()?,
        })
    }

    /// Whether `proof` (the client's ClientProof) proves knowledge of the password for this
    /// `auth_message`. Constant time in the proof's value.
    pub fn verify_proof(&self, auth_message: &[u8], proof: &[u8]) -> bool {
        if proof.len() != KEY_BYTES {
            return false;
        }
        let signature = hmac(&self.stored_key, auth_message);
        let mut client_key = [0u8; KEY_BYTES];
        for (index, byte) in client_key.iter_mut().enumerate() {
            *byte = proof[index] ^ signature[index];
        }
        sha256(&client_key).ct_eq(&self.stored_key).into()
    }

    /// ServerSignature for `auth_message`: what the server sends to prove it knew the
    /// verifier.
    pub fn server_signature(&self, auth_message: &[u8]) -> [u8; KEY_BYTES] {
        hmac(&self.server_key, auth_message)
    }
}

/// SaltedPassword: Hi(SASLprep(password), salt, iterations). A password SASLprep refuses
/// (a control character, say) is used as it is, as PostgreSQL and libpq both do, so that
/// client and server agree.
pub fn salted_password(password: &str, salt: &[u8], iterations: u32) -> [u8; KEY_BYTES] {
    let prepared = stringprep::saslprep(password).unwrap_or(std::borrow::Cow::Borrowed(password));
    let mut salted = [0u8; KEY_BYTES];
    pbkdf2::pbkdf2_hmac::<Sha256>(prepared.as_bytes(), salt, iterations, &mut salted);
    salted
}

/// The client's side of the proof, for tests and tools: ClientKey XOR ClientSignature.
pub fn client_proof(salted_password: &[u8], auth_message: &[u8]) -> [u8; KEY_BYTES] {
    let client_key = hmac(salted_password, b"Client Key");
    let signature = hmac(&sha256(&client_key), auth_message);
    let mut proof = [0u8; KEY_BYTES];
    for (index, byte) in proof.iter_mut().enumerate() {
        *byte = client_key[index] ^ signature[index];
    }
    proof
}

/// Fills `buffer` from the operating system's random source (salts, nonces). ORA-00600 if
/// it fails, which a working system never does.
pub fn random_bytes(buffer: &mut [u8]) -> Result<()> {
    getrandom::fill(buffer).map_err(|error| Error::internal(format!("getrandom: {error}")))
}

/// HMAC-SHA-256 of `message` under `key`.
pub fn hmac(key: &[u8], message: &[u8]) -> [u8; KEY_BYTES] {
    let mut mac =
        <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(message);
    mac.finalize().into_bytes().into()
}

/// SHA-256 of `data`.
pub fn sha256(data: &[u8]) -> [u8; KEY_BYTES] {
    Sha256::digest(data).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7677, section 3: user "user", password "pencil".
    const SALT: &str = "W22ZaJ0SNY7soEsUEjb6gQ==";
    const AUTH_MESSAGE: &str = "n=user,r=rOprNGfwEbeRWgbNEkqO,\
        r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,\
        c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
    const PROOF: &str = "dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
    const SERVER_SIGNATURE: &str = "6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

    #[test]
    fn rfc_7677_test_vector() {
        let salt = STANDARD.decode(SALT).unwrap();
        let verifier = Verifier::with_salt("pencil", &salt, 4096);
        let proof = STANDARD.decode(PROOF).unwrap();
        assert!(verifier.verify_proof(AUTH_MESSAGE.as_bytes(), &proof));
        assert_eq!(
            STANDARD.encode(verifier.server_signature(AUTH_MESSAGE.as_bytes())),
            SERVER_SIGNATURE
        );
        let salted = salted_password("pencil", &salt, 4096);
        assert_eq!(
            STANDARD.encode(client_proof(&salted, AUTH_MESSAGE.as_bytes())),
            PROOF
        );
        let mut wrong = proof.clone();
        wrong[0] ^= 1;
        assert!(!verifier.verify_proof(AUTH_MESSAGE.as_bytes(), &wrong));
        assert!(!verifier.verify_proof(AUTH_MESSAGE.as_bytes(), &proof[..31]));
        let other = Verifier::with_salt("pencil2", &salt, 4096);
        assert!(!other.verify_proof(AUTH_MESSAGE.as_bytes(), &proof));
    }

    #[test]
    fn the_text_form_is_postgresqls_and_reads_back() {
        let verifier = Verifier::new("tiger").unwrap();
        let text = verifier.to_string();
        assert!(text.starts_with("SCRAM-SHA-256$4096:"), "{text}");
        assert!(!text.contains("tiger"));
        assert_eq!(Verifier::parse(&text), Some(verifier.clone()));
        // A new salt each time: the same password gives another verifier.
        assert_ne!(Verifier::new("tiger").unwrap(), verifier);
        // The verifier of "pythia" with the salt 0, 1, ..., 15, as Python's hashlib and hmac
        // compute it (PostgreSQL's definition, another implementation).
        let independent = "SCRAM-SHA-256$4096:AAECAwQFBgcICQoLDA0ODw==$\
            ls7zuMAFh6d/ze8holL98fZ4kQLK2Xd+TBHrPtwtyGA=:\
            h3hRMSgVUltWc1g1X/HmETqEFeUQNMQf4IT2bAbiq/g=";
        let salt: Vec<u8> = (0..16).collect();
        assert_eq!(
            Verifier::with_salt("pythia", &salt, 4096).to_string(),
            independent
        );
        let read = Verifier::parse(independent).unwrap();
        assert_eq!(read.to_string(), independent);
        assert!(!format!("{read:?}").contains("ls7zu"));
    }

    #[test]
    fn malformed_or_unbounded_verifiers_are_refused() {
        let good = Verifier::new("x").unwrap().to_string();
        for bad in [
            "",
            "tiger",
            "SCRAM-SHA-1$4096:c2FsdA==$a:b",
            &good.replace("$4096:", "$100:"),
            &good.replace("$4096:", "$99999999:"),
            &good.replace("$4096:", "$x:"),
            &good[..good.len() - 4],
            &format!("{good}AAAA"),
        ] {
            assert_eq!(Verifier::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn saslprep_is_applied_as_clients_apply_it() {
        // U+00A0 (no-break space) maps to a space under SASLprep; a control character makes
        // SASLprep fail and the password is used as it is.
        let salt = [7u8; SALT_BYTES];
        assert_eq!(
            salted_password("a\u{a0}b", &salt, 4096),
            salted_password("a b", &salt, 4096)
        );
        assert_ne!(
            salted_password("a\u{7}b", &salt, 4096),
            salted_password("ab", &salt, 4096)
        );
    }
}
