//! Authentication: SCRAM-SHA-256 (RFC 5802, RFC 7677) against the verifiers the dictionary
//! keeps, as pgwire's `AuthMechanism`; and trust, only when asked for and only on the
//! loopback (`Server::start` refuses it elsewhere).
//!
//! ```text
//!   client                                        server (ScramExchange)
//!   Startup user=scott                 ──>
//!                                      <──  AuthenticationSASL [SCRAM-SHA-256]
//!   SASLInitialResponse SCRAM-SHA-256
//!     n,,n=,r=<client nonce>           ──>  Instance::account("scott"): verifier (or a
//!                                           made-up one for a user who does not exist)
//!                                      <──  SASLContinue r=<client+server nonce>,s=<salt>,i=4096
//!   SASLResponse c=biws,r=<nonce>,p=<proof> ──>  proof checked in constant time
//!                                      <──  SASLFinal v=<server signature>
//!                                           then Instance::logon: account open? CREATE SESSION?
//! ```
//!
//! No channel binding: there is no TLS, so only SCRAM-SHA-256 is offered and a client that
//! asks for SCRAM-SHA-256-PLUS is refused (a `y` flag, "I could bind but you do not offer
//! it", is accepted, as RFC 5802 says when the server offers no binding). An unknown user
//! runs the whole exchange against a verifier made from the server's random key and the
//! name (stable for a name, as PostgreSQL's mock authentication), and fails at the proof
//! exactly as a wrong password does: FATAL, SQLSTATE 28P01, `ORA-01017: invalid
//! username/password; logon denied`, whatever the cause. A malformed message (bounded at
//! [`SCRAM_MESSAGE_BYTES_MAX`]) is FATAL 08P01. Every failure is written to the alert log
//! (`Instance::logon_failed`, bounded) and ends that connection only.

use std::sync::Arc;

use async_trait::async_trait;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use pgwire::api::auth::mechanism::{AuthMechanism, AuthMechanismFactory, AuthState};
use pgwire::api::ClientInfo;
use pgwire::error::{ErrorInfo, PgWireError, PgWireResult};
use pgwire::messages::startup::{Authentication, PasswordMessageFamily};
use pythia::scram::{self, Verifier, MECHANISM};
use pythia::Instance;

/// The longest SCRAM message a client may send (its nonce and the proof take about 100
/// bytes; PostgreSQL's clients send an empty user name in it).
pub const SCRAM_MESSAGE_BYTES_MAX: usize = 2048;
/// Random bytes of the server's part of the nonce (PostgreSQL's length), sent in base64.
const SERVER_NONCE_BYTES: usize = 18;

/// How a server authenticates its clients.
pub enum ClientAuthentication {
    /// Every client must prove its user's password.
    Scram(Arc<Scram>),
    /// No password: `--trust`, on a loopback address only. The user must still exist, be
    /// open and hold CREATE SESSION.
    Trust,
}

impl ClientAuthentication {
    /// A new exchange for one connection.
    pub fn create(&self) -> Box<dyn AuthMechanism> {
        match self {
            ClientAuthentication::Scram(scram) => scram.create(),
            ClientAuthentication::Trust => Box::new(TrustMechanism),
        }
    }
}

/// SCRAM-SHA-256 against the instance's users: the factory of each connection's exchange.
pub struct Scram {
    instance: Arc<Instance>,
    /// The key unknown users' made-up salts come from: random for each server.
    mock_key: [u8; scram::KEY_BYTES],
}

impl Scram {
    pub fn new(instance: Arc<Instance>) -> pythia::Result<Scram> {
        let mut mock_key = [0; scram::KEY_BYTES];
        scram::random_bytes(&mut mock_key)?;
        Ok(Scram { instance, mock_key })
    }
}

/// A verifier no password matches (`key` is the server's random one), the same for a name
/// every time, so that its salt does not tell a made-up user from a real one across
/// attempts.
fn mock_verifier(key: &[u8; scram::KEY_BYTES], user: &str) -> Verifier {
    let salt = scram::hmac(key, user.as_bytes());
    Verifier {
        iterations: scram::ITERATIONS,
        salt: salt[..scram::SALT_BYTES].to_vec(),
        stored_key: scram::hmac(key, b"stored key"),
        server_key: scram::hmac(key, b"server key"),
    }
}

impl AuthMechanismFactory for Scram {
    fn create(&self) -> Box<dyn AuthMechanism> {
        Box::new(ScramExchange {
            instance: self.instance.clone(),
            mock: self.mock_key,
            state: State::Started,
        })
    }
}

/// One connection's exchange.
struct ScramExchange {
    instance: Arc<Instance>,
    mock: [u8; scram::KEY_BYTES],
    state: State,
}

enum State {
    Started,
    ServerFirstSent(Box<Sent>),
    Ended,
}

/// What the client-final message is checked against.
struct Sent {
    /// The verifier, and whether it is the user's (false: made up, no proof passes).
    verifier: Verifier,
    real: bool,
    /// `n,,` or `y,,`: what the client-final's `c=` must carry back.
    gs2_header: String,
    client_first_bare: String,
    server_first: String,
    nonce: String,
}

#[async_trait]
impl AuthMechanism for ScramExchange {
    async fn begin(&mut self, _: &(dyn ClientInfo + Send + Sync)) -> PgWireResult<AuthState> {
        Ok(AuthState::InProgress(Authentication::SASL(vec![
            MECHANISM.to_string()
        ])))
    }

    async fn next(
        &mut self,
        client: &(dyn ClientInfo + Send + Sync),
        message: PasswordMessageFamily,
    ) -> PgWireResult<AuthState> {
        let state = std::mem::replace(&mut self.state, State::Ended);
        let step = match state {
            State::Started => self.client_first(client, message),
            State::ServerFirstSent(sent) => self.client_final(message, &sent),
            State::Ended => Err(protocol_violation("the SCRAM exchange is over")),
        };
        match step {
            Ok(Step::Continue(sent, reply)) => {
                self.state = State::ServerFirstSent(sent);
                Ok(AuthState::InProgress(reply))
            }
            Ok(Step::Authenticated(reply)) => Ok(AuthState::Ok {
                final_message: Some(reply),
                identity: None,
            }),
            Err(failure) => {
                let (error, logged) = *failure;
                let user = user_of(client);
                self.instance
                    .logon_failed(&user, &client.socket_addr().to_string(), &logged);
                Ok(AuthState::Failed(PgWireError::UserError(Box::new(error))))
            }
        }
    }
}

/// Where an exchange goes next.
enum Step {
    Continue(Box<Sent>, Authentication),
    Authenticated(Authentication),
}

/// A failure: what the client is told, and the error the alert log records.
type Failure = Box<(ErrorInfo, pythia::Error)>;

impl ScramExchange {
    /// The client-first message: checks it, and answers with the nonce, salt and
    /// iteration count.
    fn client_first(
        &self,
        client: &(dyn ClientInfo + Send + Sync),
        message: PasswordMessageFamily,
    ) -> Result<Step, Failure> {
        let initial = message
            .into_sasl_initial_response()
            .map_err(|_| protocol_violation("expected a SASLInitialResponse"))?;
        if initial.auth_method != MECHANISM {
            return Err(no_matching_protocol(&initial.auth_method));
        }
        let data = initial
            .data
            .ok_or_else(|| protocol_violation("the client-first message is missing"))?;
        let text = message_text(&data)?;
        let (gs2_header, client_first_bare) = split_gs2_header(text)?;
        let mut attributes = client_first_bare.split(',');
        let first = attributes.next().unwrap_or_default();
        if first.starts_with("m=") {
            return Err(protocol_violation("mandatory extensions are not supported"));
        }
        if !first.starts_with("n=") {
            return Err(protocol_violation("the user name attribute is missing"));
        }
        // The name in the message is ignored, as PostgreSQL ignores it: the startup
        // message's user is the one that logs on.
        let client_nonce = attributes
            .next()
            .and_then(|attribute| attribute.strip_prefix("r="))
            .filter(|nonce| valid_nonce(nonce))
            .ok_or_else(|| protocol_violation("the client nonce is missing or invalid"))?;
        let user = user_of(client);
        let (verifier, real) = match self
            .instance
            .account(&user)
            .and_then(|account| account.verifier)
        {
            Some(verifier) => (verifier, true),
            None => (mock_verifier(&self.mock, &user), false),
        };
        let mut random = [0u8; SERVER_NONCE_BYTES];
        scram::random_bytes(&mut random).map_err(|error| {
            Box::new((
                ErrorInfo::new("FATAL".into(), "XX000".into(), error.to_string()),
                error,
            ))
        })?;
        let nonce = format!("{client_nonce}{}", STANDARD.encode(random));
        let server_first = format!(
            "r={nonce},s={},i={}",
            STANDARD.encode(&verifier.salt),
            verifier.iterations
        );
        let reply = Authentication::SASLContinue(server_first.clone().into_bytes().into());
        let sent = Sent {
            verifier,
            real,
            gs2_header: gs2_header.to_string(),
            client_first_bare: client_first_bare.to_string(),
            server_first,
            nonce,
        };
        Ok(Step::Continue(Box::new(sent), reply))
    }

    /// The client-final message: the channel binding and nonce it carries back, and its
    /// proof, checked against the verifier.
    fn client_final(&self, message: PasswordMessageFamily, sent: &Sent) -> Result<Step, Failure> {
        let response = message
            .into_sasl_response()
            .map_err(|_| protocol_violation("expected a SASLResponse"))?;
        let text = message_text(&response.data)?;
        let (without_proof, proof) = text
            .rsplit_once(",p=")
            .ok_or_else(|| protocol_violation("the proof is missing"))?;
        let mut attributes = without_proof.split(',');
        let binding = attributes
            .next()
            .and_then(|attribute| attribute.strip_prefix("c="))
            .and_then(|binding| STANDARD.decode(binding).ok())
            .ok_or_else(|| protocol_violation("the channel binding is missing"))?;
        if binding != sent.gs2_header.as_bytes() {
            return Err(protocol_violation(
                "the channel binding does not match the client-first message",
            ));
        }
        if attributes.next().and_then(|nonce| nonce.strip_prefix("r=")) != Some(&sent.nonce) {
            return Err(protocol_violation("the nonce does not match"));
        }
        let proof = STANDARD
            .decode(proof)
            .map_err(|_| protocol_violation("the proof is not base64"))?;
        let auth_message = format!(
            "{},{},{without_proof}",
            sent.client_first_bare, sent.server_first
        );
        // Both checked whatever the first says, so that a made-up verifier costs what a
        // real one does.
        let proven = sent.verifier.verify_proof(auth_message.as_bytes(), &proof);
        if !(proven && sent.real) {
            let error = pythia::Error::invalid_logon();
            return Err(Box::new((super::error_info(&error, "", 0, "FATAL"), error)));
        }
        let signature = sent.verifier.server_signature(auth_message.as_bytes());
        let server_final = format!("v={}", STANDARD.encode(signature));
        Ok(Step::Authenticated(Authentication::SASLFinal(
            server_final.into_bytes().into(),
        )))
    }
}

/// The user the startup message names ("" when it names none: no such user).
pub fn user_of(client: &(impl ClientInfo + ?Sized)) -> String {
    client.metadata().get("user").cloned().unwrap_or_default()
}

/// A SCRAM message as text, within [`SCRAM_MESSAGE_BYTES_MAX`].
fn message_text(data: &[u8]) -> Result<&str, Failure> {
    if data.len() > SCRAM_MESSAGE_BYTES_MAX {
        return Err(protocol_violation("the SCRAM message is too long"));
    }
    std::str::from_utf8(data).map_err(|_| protocol_violation("the SCRAM message is not UTF-8"))
}

/// Splits the client-first message into its GS2 header (`n,,` or `y,,`) and the rest:
/// channel binding (`p=`) and an authorization identity (`a=`) are refused.
fn split_gs2_header(text: &str) -> Result<(&str, &str), Failure> {
    let flag = text.get(..2).unwrap_or_default();
    match flag {
        "n," | "y," => {}
        _ if text.starts_with("p=") => {
            return Err(no_matching_protocol("channel binding (SCRAM-SHA-256-PLUS)"))
        }
        _ => return Err(protocol_violation("the GS2 header is invalid")),
    }
    let rest = &text[2..];
    if rest.starts_with("a=") {
        return Err(protocol_violation(
            "an authorization identity is not supported",
        ));
    }
    let bare = rest
        .strip_prefix(',')
        .ok_or_else(|| protocol_violation("the GS2 header is invalid"))?;
    Ok((&text[..3], bare))
}

/// A nonce: printable ASCII but the comma (RFC 5802), at least one character.
fn valid_nonce(nonce: &str) -> bool {
    !nonce.is_empty()
        && nonce
            .bytes()
            .all(|byte| (0x21..=0x7e).contains(&byte) && byte != b',')
}

/// FATAL 08P01: the exchange broke its rules.
fn protocol_violation(what: &str) -> Failure {
    let message = format!("malformed SCRAM message: {what}");
    Box::new((
        ErrorInfo::new("FATAL".into(), "08P01".into(), message.clone()),
        pythia::Error::new(
            28040,
            format!("No matching authentication protocol: {message}"),
        ),
    ))
}

/// FATAL 28000 with ORA-28040: the client asked for a mechanism this server does not offer.
fn no_matching_protocol(asked: &str) -> Failure {
    let error = pythia::Error::new(
        28040,
        format!(
            "No matching authentication protocol: {asked} is not offered, only {MECHANISM} \
             (this server has no TLS, so no channel binding)"
        ),
    );
    Box::new((
        ErrorInfo::new("FATAL".into(), "28000".into(), error.to_string()),
        error,
    ))
}

/// Trust: no password asked (`--trust`, loopback addresses only).
struct TrustMechanism;

#[async_trait]
impl AuthMechanism for TrustMechanism {
    async fn begin(&mut self, _: &(dyn ClientInfo + Send + Sync)) -> PgWireResult<AuthState> {
        Ok(AuthState::Ok {
            final_message: None,
            identity: None,
        })
    }

    async fn next(
        &mut self,
        _: &(dyn ClientInfo + Send + Sync),
        _: PasswordMessageFamily,
    ) -> PgWireResult<AuthState> {
        Err(PgWireError::NoAuthenticationInProgress)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use pgwire::messages::startup::SASLResponse;

    fn response(data: &str) -> PasswordMessageFamily {
        PasswordMessageFamily::SASLResponse(SASLResponse::new(data.to_string().into_bytes().into()))
    }

    /// RFC 7677's exchange, from the server's side: user "user", password "pencil", its
    /// salt, and the client nonce; the server's nonce is ours, so the proof is computed
    /// here as the client computes it, and the server's signature checked.
    #[test]
    fn the_exchange_follows_rfc_7677() {
        let salt = STANDARD.decode("W22ZaJ0SNY7soEsUEjb6gQ==").unwrap();
        let verifier = Verifier::with_salt("pencil", &salt, 4096);
        let sent = Sent {
            verifier: verifier.clone(),
            real: true,
            gs2_header: "n,,".into(),
            client_first_bare: "n=user,r=rOprNGfwEbeRWgbNEkqO".into(),
            server_first: "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,\
                           s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
                .into(),
            nonce: "rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0".into(),
        };
        let dir = std::env::temp_dir().join(format!("pythia-auth-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let instance = Instance::open_with_password(
            &dir,
            &[("db_cache_size", "8M"), ("undo_tablespace_size", "16M")],
            None,
        )
        .unwrap();
        let exchange = ScramExchange {
            instance: instance.clone(),
            mock: [0; 32],
            state: State::Started,
        };
        // RFC 7677's client-final message, byte for byte.
        let client_final = "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,\
                            p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
        let Ok(Step::Authenticated(Authentication::SASLFinal(data))) =
            exchange.client_final(response(client_final), &sent)
        else {
            panic!("RFC 7677's proof is refused");
        };
        assert_eq!(&data[..], b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
        // A proof off by one bit, a nonce not the server's, a binding not the header's.
        let wrong = client_final.replace("p=dHzb", "p=dHzc");
        let Err(failure) = exchange.client_final(response(&wrong), &sent) else {
            panic!("a wrong proof passed");
        };
        let error = &failure.0;
        assert_eq!(error.code, "28P01");
        assert_eq!(
            error.message,
            "ORA-01017: invalid username/password; logon denied"
        );
        let other_nonce = client_final.replace("k0,p=", "k1,p=");
        let Err(failure) = exchange.client_final(response(&other_nonce), &sent) else {
            panic!("another nonce passed");
        };
        assert_eq!(failure.0.code, "08P01");
        let bound = client_final.replace("c=biws", "c=eSws");
        assert!(exchange.client_final(response(&bound), &sent).is_err());
        // The same proof against a made-up verifier fails as a wrong password does.
        let mock = Sent {
            real: false,
            ..sent
        };
        let Err(failure) = exchange.client_final(response(client_final), &mock) else {
            panic!("a made-up verifier passed");
        };
        assert_eq!(failure.0.code, "28P01");
        drop(instance);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn client_first_messages_are_checked() {
        assert_eq!(
            split_gs2_header("n,,n=,r=abc").ok(),
            Some(("n,,", "n=,r=abc"))
        );
        assert_eq!(
            split_gs2_header("y,,n=user,r=abc").ok(),
            Some(("y,,", "n=user,r=abc"))
        );
        for (message, code) in [
            ("p=tls-server-end-point,,n=,r=abc", "28000"),
            ("n,a=admin,n=,r=abc", "08P01"),
            ("x,,n=,r=abc", "08P01"),
            ("n,", "08P01"),
        ] {
            let Err(failure) = split_gs2_header(message) else {
                panic!("{message} passed");
            };
            assert_eq!(failure.0.code, code, "{message}");
        }
        assert!(valid_nonce("rOprNGfwEbeRWgbNEkqO"));
        assert!(!valid_nonce(""));
        assert!(!valid_nonce("a,b"));
        assert!(!valid_nonce("a b"));
    }
}
