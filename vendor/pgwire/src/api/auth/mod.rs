use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::Arc;

use async_trait::async_trait;
use futures::sink::{Sink, SinkExt};

use super::{
    ClientInfo, ConnectionGuard, ConnectionHandle, METADATA_APPLICATION_NAME,
    METADATA_CLIENT_ENCODING, METADATA_DATABASE, METADATA_USER, PgWireConnectionState,
};
use crate::error::{PgWireError, PgWireResult};
use crate::messages::response::{ReadyForQuery, TransactionStatus};
use crate::messages::startup::{
    Authentication, BackendKeyData, NegotiateProtocolVersion, ParameterStatus, Startup,
};
use crate::messages::{PgWireBackendMessage, PgWireFrontendMessage, ProtocolVersion};
use crate::types::format::FormatOptions;
#[cfg(any(feature = "_ring", feature = "_aws-lc-rs"))]
use rustls_pki_types::CertificateDer;

/// Handles startup process and frontend messages
#[async_trait]
pub trait StartupHandler: Send + Sync {
    /// A generic frontend message callback during startup phase.
    async fn on_startup<C>(
        &self,
        client: &mut C,
        message: PgWireFrontendMessage,
    ) -> PgWireResult<()>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>;
}

/// Provides server parameters to send to the client during startup.
pub trait ServerParameterProvider: Send + Sync {
    fn server_parameters<C>(&self, _client: &C) -> Option<HashMap<String, String>>
    where
        C: ClientInfo;
}

impl<P> ServerParameterProvider for Arc<P>
where
    P: ServerParameterProvider,
{
    fn server_parameters<C>(&self, client: &C) -> Option<HashMap<String, String>>
    where
        C: ClientInfo,
    {
        (**self).server_parameters(client)
    }
}

/// Default noop parameter provider.
///
/// This provider responds frontend with default parameters:
///
/// - `server_version`: We will use a pattern like `<postgres
///   version>-pgwire-<pgwire version>` for compatibility
/// - `server_encoding`: `UTF8`
/// - `integer_datetimes`: `on` by following postgres defaults.
/// - `in_hot_standby`: `off`
/// - `search_path`: `public` by default
/// - `is_superuser`: `on` by default
/// - `default_transaction_read_only`: `off` by default
/// - `scram_iteration`: `4096` by default
/// - `DateStyle`: `ISO YMD` the default text serialization in this library is
///   using `YMD` style date.
/// - `IntervalStyle`: `postgres`
/// - `TimeZone`: `Etc/UTC` by default
/// - `standard_conforming_string`: `on` by default
/// - `client_encoding`: `UTF-8`. You can override this by providing a value, or
///   set to `None` to use client provided value.
/// - `application_name`: Follow the client provided value by default. You can
///   override this by providing a value.
/// - `session_authorization`: The user name, following the client provided
///   value. You can override this by providing a value.
#[non_exhaustive]
#[derive(Debug)]
pub struct DefaultServerParameterProvider {
    pub server_version: String,
    pub server_encoding: String,
    pub integer_datetimes: bool,
    pub in_hot_standby: bool,
    pub search_path: String,
    pub is_superuser: bool,
    pub default_transaction_read_only: bool,
    #[cfg(any(feature = "_aws-lc-rs", feature = "_ring"))]
    pub scram_iterations: usize,
    // format settings
    pub time_zone: String,
    pub date_style: String,
    pub interval_style: String,
    pub standard_conforming_strings: bool,
    // user name and application name, follow client data
    pub client_encoding: Option<String>,
    pub application_name: Option<String>,
    pub session_authorization: Option<String>,
}

impl Default for DefaultServerParameterProvider {
    fn default() -> Self {
        let format_options = FormatOptions::default();

        Self {
            server_version: format!("16.6-pgwire-{}", env!("CARGO_PKG_VERSION").to_owned()),
            server_encoding: "UTF8".to_owned(),
            integer_datetimes: true,
            in_hot_standby: false,
            search_path: "public".to_owned(),
            is_superuser: true,
            default_transaction_read_only: false,
            #[cfg(any(feature = "_aws-lc-rs", feature = "_ring"))]
            scram_iterations: sasl::scram::SCRAM_ITERATIONS,

            time_zone: format_options.time_zone,
            date_style: format_options.date_style,
            interval_style: format_options.interval_style,
            standard_conforming_strings: true,

            client_encoding: Some("UTF8".to_owned()),
            application_name: None,
            session_authorization: None,
        }
    }
}

fn bool_to_string(v: bool) -> String {
    if v {
        "on".to_string()
    } else {
        "off".to_string()
    }
}

impl ServerParameterProvider for DefaultServerParameterProvider {
    fn server_parameters<C>(&self, client: &C) -> Option<HashMap<String, String>>
    where
        C: ClientInfo,
    {
        let mut params = HashMap::with_capacity(16);
        params.insert("server_version".to_owned(), self.server_version.clone());
        params.insert("server_encoding".to_owned(), self.server_encoding.clone());
        params.insert(
            "integer_datetimes".to_owned(),
            bool_to_string(self.integer_datetimes),
        );
        params.insert(
            "in_hot_standby".to_owned(),
            bool_to_string(self.in_hot_standby),
        );
        params.insert("search_path".to_owned(), self.search_path.clone());
        params.insert("is_superuser".to_owned(), bool_to_string(self.is_superuser));
        params.insert(
            "default_transaction_read_only".to_owned(),
            bool_to_string(self.default_transaction_read_only),
        );
        #[cfg(any(feature = "_aws-lc-rs", feature = "_ring"))]
        params.insert(
            "scram_iterations".to_owned(),
            self.scram_iterations.to_string(),
        );

        params.insert("TimeZone".to_owned(), self.time_zone.clone());
        params.insert("DateStyle".to_owned(), self.date_style.clone());
        params.insert("IntervalStyle".to_owned(), self.interval_style.clone());
        params.insert(
            "standard_conforming_strings".to_owned(),
            bool_to_string(self.standard_conforming_strings),
        );

        if let Some(client_encoding) = self
            .client_encoding
            .as_ref()
            .or_else(|| client.metadata().get(METADATA_CLIENT_ENCODING))
        {
            params.insert(METADATA_CLIENT_ENCODING.to_owned(), client_encoding.clone());
        }
        if let Some(application_name) = self
            .application_name
            .as_ref()
            .or_else(|| client.metadata().get(METADATA_APPLICATION_NAME))
        {
            params.insert(
                METADATA_APPLICATION_NAME.to_owned(),
                application_name.clone(),
            );
        }
        if let Some(user) = self
            .session_authorization
            .as_ref()
            .or_else(|| client.metadata().get(METADATA_USER))
        {
            params.insert("session_authorization".to_owned(), user.clone());
        }

        Some(params)
    }
}

/// Represents a password with an optional salt.
#[derive(Debug, new, Clone)]
pub struct Password {
    salt: Option<Vec<u8>>,
    password: Vec<u8>,
}

impl Password {
    /// Returns the salt, if any.
    pub fn salt(&self) -> Option<&[u8]> {
        self.salt.as_deref()
    }

    /// Returns the password bytes.
    pub fn password(&self) -> &[u8] {
        &self.password
    }
}

/// Login information extracted from the client connection.
#[derive(Debug, new)]
pub struct LoginInfo<'a> {
    user: Option<&'a str>,
    database: Option<&'a str>,
    host: String,
    #[cfg(any(feature = "_ring", feature = "_aws-lc-rs"))]
    #[new(default)]
    sni_server_name: Option<&'a str>,
    #[cfg(any(feature = "_ring", feature = "_aws-lc-rs"))]
    #[new(default)]
    client_certificates: Option<&'a [CertificateDer<'a>]>,
}

impl LoginInfo<'_> {
    /// Returns the user name.
    pub fn user(&self) -> Option<&str> {
        self.user
    }

    /// Returns the database name.
    pub fn database(&self) -> Option<&str> {
        self.database
    }

    /// Returns the client host address.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// Returns the TLS SNI server name, if the connection is secured and
    /// the client sent one.
    #[cfg(any(feature = "_ring", feature = "_aws-lc-rs"))]
    pub fn sni_server_name(&self) -> Option<&str> {
        self.sni_server_name
    }

    /// Returns the client TLS certificates, if the connection is secured
    /// and the client presented any.
    #[cfg(any(feature = "_ring", feature = "_aws-lc-rs"))]
    pub fn client_certificates(&self) -> Option<&[CertificateDer<'_>]> {
        self.client_certificates
    }

    /// Creates `LoginInfo` from a client.
    pub fn from_client_info<C>(client: &C) -> LoginInfo<'_>
    where
        C: ClientInfo + ?Sized,
    {
        LoginInfo {
            user: client.metadata().get(METADATA_USER).map(|s| s.as_str()),
            database: client.metadata().get(METADATA_DATABASE).map(|s| s.as_str()),
            host: client.socket_addr().ip().to_string(),
            #[cfg(any(feature = "_ring", feature = "_aws-lc-rs"))]
            sni_server_name: client.sni_server_name(),
            #[cfg(any(feature = "_ring", feature = "_aws-lc-rs"))]
            client_certificates: client.client_certificates(),
        }
    }
}

/// Represents auth source, the source returns password either in cleartext or
/// hashed with salt.
///
/// When using with different authentication mechanism, the developer can choose
/// specific implementation of `AuthSource`. For example, with cleartext
/// authentication, salt is not required, while in md5pass, a 4-byte salt is
/// needed.
#[async_trait]
pub trait AuthSource<I = ()>: Send + Sync + Debug {
    /// Get password from the `AuthSource`.
    ///
    /// `Password` has a an optional salt field when it's hashed.
    async fn get_password(&self, login: &LoginInfo) -> PgWireResult<Password>;

    /// Verify a password presented by the client, returning the
    /// authenticated identity on success.
    ///
    /// The default implementation compares the presented password against
    /// [`AuthSource::get_password`] and reports no identity. Override it
    /// when the backend verifies passwords itself (hashed storage, bearer
    /// tokens, remote validation, ...) instead of storing recoverable
    /// passwords, and return the principal it resolved.
    async fn verify_password(
        &self,
        login: &LoginInfo,
        presented_password: &[u8],
    ) -> PgWireResult<Option<I>> {
        let expected = self.get_password(login).await?;
        if expected.password() == presented_password {
            Ok(None)
        } else {
            Err(PgWireError::InvalidPassword(
                login.user().unwrap_or_default().to_owned(),
            ))
        }
    }

    /// Get SCRAM credential material and the identity it belongs to for
    /// this login.
    ///
    /// By default this derives a salted-password
    /// [`ScramSecret`](crate::api::auth::sasl::scram::ScramSecret) from
    /// [`AuthSource::get_password`] and reports no identity. Override this
    /// method to return a verifier-based
    /// [`ScramSecret`](crate::api::auth::sasl::scram::ScramSecret) when the
    /// underlying user store only keeps a postgres-style verifier
    /// (`stored_key`/`server_key`) instead of the (salted) password, and
    /// to report the identity the verifier resolves to.
    #[cfg(any(feature = "_aws-lc-rs", feature = "_ring"))]
    async fn get_scram_secret(
        &self,
        login: &LoginInfo,
    ) -> PgWireResult<(sasl::scram::ScramSecret, Option<I>)> {
        let password = self.get_password(login).await?;
        let salt = password.salt().map(|s| s.to_vec()).ok_or_else(|| {
            PgWireError::InvalidScramMessage("Salt required for SCRAM auth source".to_owned())
        })?;
        Ok((
            sasl::scram::ScramSecret::SaltedPassword {
                salt,
                salted_password: password.password().to_vec(),
            },
            None,
        ))
    }
}

/// Negotiates the protocol version with the client.
pub async fn protocol_negotiation<C>(client: &mut C, startup_message: &Startup) -> PgWireResult<()>
where
    C: ClientInfo + Sink<PgWireBackendMessage> + Unpin,
    C::Error: Debug,
    PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
{
    if let Some(protocol_version) = ProtocolVersion::from_version_number(
        startup_message.protocol_number_major,
        startup_message.protocol_number_minor,
    ) {
        client.set_protocol_version(protocol_version);
        Ok(())
    } else {
        let newest_server_version = ProtocolVersion::default();
        let (newest_major_version, _newest_minor_version) = newest_server_version.version_number();
        if newest_major_version == startup_message.protocol_number_major {
            client
                .send(PgWireBackendMessage::NegotiateProtocolVersion(
                    NegotiateProtocolVersion::new(newest_server_version.into(), vec![]),
                ))
                .await?;
            client.set_protocol_version(newest_server_version);
            Ok(())
        } else {
            Err(PgWireError::UnsupportedProtocolVersion(
                startup_message.protocol_number_major,
                startup_message.protocol_number_minor,
            ))
        }
    }
}

/// Saves startup message parameters into client metadata.
pub fn save_startup_parameters_to_metadata<C>(client: &mut C, startup_message: &Startup)
where
    C: ClientInfo,
{
    client.metadata_mut().extend(
        startup_message
            .parameters
            .iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned())),
    );
}

pub(crate) fn register_connection<C>(client: &C, manager: &Arc<super::ConnectionManager>)
where
    C: ClientInfo,
{
    let (pid, secret_key) = client.pid_and_secret_key();
    let (handle, guard) = manager.register(pid, secret_key);
    client
        .session_extensions()
        .insert::<Arc<ConnectionHandle>>(handle);
    client.session_extensions().insert::<ConnectionGuard>(guard);
}

pub(crate) async fn finish_authentication0<C, P>(
    client: &mut C,
    server_parameter_provider: &P,
) -> PgWireResult<()>
where
    C: ClientInfo + Sink<PgWireBackendMessage> + Unpin,
    C::Error: Debug,
    PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    P: ServerParameterProvider,
{
    client
        .feed(PgWireBackendMessage::Authentication(Authentication::Ok))
        .await?;

    if let Some(parameters) = server_parameter_provider.server_parameters(client) {
        for (k, v) in parameters {
            client
                .feed(PgWireBackendMessage::ParameterStatus(ParameterStatus::new(
                    k, v,
                )))
                .await?;
        }
    }

    let (pid, secret_key) = client.pid_and_secret_key();
    client
        .feed(PgWireBackendMessage::BackendKeyData(BackendKeyData::new(
            pid, secret_key,
        )))
        .await?;

    Ok(())
}

/// Completes authentication by sending `AuthenticationOk`, parameter status, backend key data, and `ReadyForQuery`.
pub async fn finish_authentication<C, P>(
    client: &mut C,
    server_parameter_provider: &P,
) -> PgWireResult<()>
where
    C: ClientInfo + Sink<PgWireBackendMessage> + Unpin,
    C::Error: Debug,
    PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    P: ServerParameterProvider,
{
    finish_authentication0(client, server_parameter_provider).await?;

    client
        .send(PgWireBackendMessage::ReadyForQuery(ReadyForQuery::new(
            TransactionStatus::Idle,
        )))
        .await?;

    client.set_state(PgWireConnectionState::ReadyForQuery);
    Ok(())
}

pub mod cleartext;
pub mod driver;
pub mod md5pass;
pub mod mechanism;
pub mod noop;
#[cfg(any(feature = "_aws-lc-rs", feature = "_ring"))]
pub mod sasl;
pub use driver::{AuthDriver, AuthOutcome};
#[cfg(feature = "simple-oidc-validator")]
pub mod simple_oidc_validator;
#[cfg(test)]
pub(crate) mod test_util;

#[cfg(test)]
mod login_info_tests {
    use super::*;
    use crate::api::auth::test_util::TestClient;

    #[test]
    fn login_info_from_client_info() {
        let client = TestClient::new(Some("alice"));
        let login = LoginInfo::from_client_info(&client);

        assert_eq!(login.user(), Some("alice"));
        assert!(login.database().is_none());
        assert_eq!(login.host(), "127.0.0.1");
        #[cfg(any(feature = "_ring", feature = "_aws-lc-rs"))]
        {
            assert_eq!(login.sni_server_name(), None);
            assert!(login.client_certificates().is_none());
        }
    }

    #[test]
    fn login_info_new_keeps_three_arguments() {
        let login = LoginInfo::new(Some("alice"), Some("db"), "127.0.0.1".to_owned());

        assert_eq!(login.user(), Some("alice"));
        assert_eq!(login.database(), Some("db"));
        #[cfg(any(feature = "_ring", feature = "_aws-lc-rs"))]
        assert_eq!(login.sni_server_name(), None);
    }
}
