//! Logging on through a real PostgreSQL client (tokio-postgres, which speaks SCRAM-SHA-256):
//! the right password logs on, a wrong one and an unknown user get the same FATAL 28P01 and
//! the server goes on; a locked account and one without CREATE SESSION are refused with
//! 28000; ALTER USER's new password works and the old one no longer does; the dictionary
//! keeps a verifier, not the password; trust mode is for loopback addresses only.

use std::net::SocketAddr;
use std::time::Duration;

use pythia_server::{Server, ServerOptions};
use tokio_postgres::Client;

mod common;
use common::{connect_as, first_column, first_value, start_with};

/// The SQLSTATE and message a logon fails with.
async fn refused(address: SocketAddr, user: &str, password: Option<&str>) -> (String, String) {
    match connect_as(address, user, password).await {
        Ok(_) => panic!("{user} logged on with {password:?}"),
        Err(error) => {
            let db = error
                .as_db_error()
                .unwrap_or_else(|| panic!("{user}: not a server error: {error}"));
            assert_eq!(db.severity(), "FATAL");
            (db.code().code().to_string(), db.message().to_string())
        }
    }
}

async fn logged_on(address: SocketAddr, user: &str, password: &str) -> Client {
    connect_as(address, user, Some(password))
        .await
        .unwrap_or_else(|error| panic!("{user} / {password}: {error}"))
}

const INVALID: &str = "ORA-01017: invalid username/password; logon denied";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn passwords_are_checked_with_scram_sha_256() {
    let (instance, server) =
        start_with("auth-scram", &[], Some("manager"), ServerOptions::default());
    let address = server.local_addr();
    let system = logged_on(address, "system", "manager").await;
    assert_eq!(
        first_value(&system, "select user from dual").await,
        "SYSTEM"
    );
    assert_eq!(
        first_value(
            &system,
            "select username from v$session where sid = \
             (select sid from v$mystat where rownum = 1)"
        )
        .await,
        "SYSTEM"
    );
    // A wrong password, an unknown user, no password at all: the same error, and the
    // server goes on.
    let wrong = refused(address, "system", Some("Manager")).await;
    assert_eq!(wrong, ("28P01".to_string(), INVALID.to_string()));
    assert_eq!(refused(address, "nobody", Some("manager")).await, wrong);
    // (tokio-postgres refuses to start without one: nothing reaches the server.)
    assert!(connect_as(address, "system", None).await.is_err());
    assert_eq!(first_value(&system, "select 1 from dual").await, "1");

    // A user: no CREATE SESSION, then locked, then in (the extended protocol runs these).
    system
        .execute("create user scott identified by tiger", &[])
        .await
        .unwrap();
    let (code, message) = refused(address, "scott", Some("tiger")).await;
    assert_eq!(code, "28000");
    assert_eq!(
        message,
        "ORA-01045: user SCOTT lacks CREATE SESSION privilege; logon denied"
    );
    // A wrong password is told as such, not what else is wrong with the account.
    assert_eq!(refused(address, "scott", Some("lion")).await, wrong);
    system
        .batch_execute("grant create session to scott; alter user scott account lock")
        .await
        .unwrap();
    assert_eq!(
        refused(address, "scott", Some("tiger")).await,
        (
            "28000".to_string(),
            "ORA-28000: the account is locked".to_string()
        )
    );
    system
        .execute("alter user scott account unlock", &[])
        .await
        .unwrap();
    let scott = logged_on(address, "SCOTT", "tiger").await;
    assert_eq!(first_value(&scott, "select user from dual").await, "SCOTT");
    // Only SYSTEM administers users.
    let error = scott
        .execute("alter user system identified by mine", &[])
        .await
        .unwrap_err();
    assert_eq!(error.code().unwrap().code(), "42501");
    // ALTER USER: the new password works, the old one no longer does.
    scott
        .execute("alter user scott identified by \"Lion King\"", &[])
        .await
        .unwrap();
    assert_eq!(refused(address, "scott", Some("tiger")).await, wrong);
    let again = logged_on(address, "scott", "Lion King").await;
    assert_eq!(first_value(&again, "select user from dual").await, "SCOTT");
    // The dictionary keeps a verifier, and no cursor the password.
    let verifier = instance
        .account("SCOTT")
        .unwrap()
        .verifier
        .unwrap()
        .to_string();
    assert!(verifier.starts_with("SCRAM-SHA-256$4096:"), "{verifier}");
    assert!(!verifier.contains("Lion"), "{verifier}");
    let texts = first_column(&system, "select sql_text from v$sql").await;
    assert!(texts
        .iter()
        .any(|text| text.contains("identified by :password")));
    assert!(
        !texts
            .iter()
            .any(|text| text.contains("Lion") || text.contains("tiger")),
        "{texts:?}"
    );
    // Every failure is in the alert log.
    let alert = std::fs::read_to_string(instance.directory().join("alert.log")).unwrap();
    let failed = alert
        .lines()
        .filter(|line| line.contains("Logon failed"))
        .count();
    assert_eq!(failed, 6, "{alert}");
    assert!(alert.contains("Logon failed: user \"nobody\" from 127.0.0.1:"));
    drop((system, scott, again));
    assert_eq!(server.stop(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trust_is_for_loopback_addresses_and_still_checks_the_account() {
    let (instance, server) = start_with(
        "auth-trust",
        &[],
        None,
        ServerOptions {
            trust: true,
            ..ServerOptions::default()
        },
    );
    let address = server.local_addr();
    // No password asked, but the user must exist, be open and hold CREATE SESSION.
    let system = connect_as(address, "system", None).await.unwrap();
    system
        .batch_execute("create user app no authentication; grant create session to app")
        .await
        .unwrap();
    let app = connect_as(address, "app", None).await.unwrap();
    assert_eq!(first_value(&app, "select user from dual").await, "APP");
    assert_eq!(
        refused(address, "nobody", None).await,
        ("28P01".to_string(), INVALID.to_string())
    );
    system
        .execute("alter user app account lock", &[])
        .await
        .unwrap();
    assert_eq!(refused(address, "app", None).await.0, "28000");
    drop((system, app));
    assert_eq!(server.stop(), 0);

    // Trust on an address other hosts reach is refused; passwords are not.
    let everywhere: SocketAddr = "0.0.0.0:0".parse().unwrap();
    let error = Server::start(
        instance.clone(),
        everywhere,
        ServerOptions {
            trust: true,
            ..ServerOptions::default()
        },
    )
    .err()
    .expect("trust on 0.0.0.0");
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
    assert!(error.to_string().contains("loopback"), "{error}");
    let server = Server::start(instance.clone(), everywhere, ServerOptions::default()).unwrap();
    let local: SocketAddr = format!("127.0.0.1:{}", server.local_addr().port())
        .parse()
        .unwrap();
    // SYSTEM of a database made without a password: no password logs it on.
    assert_eq!(refused(local, "system", Some("")).await.0, "28P01");
    assert_eq!(refused(local, "system", Some("x")).await.0, "28P01");
    assert_eq!(server.stop(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_logons_disturb_no_one_else() {
    let (_instance, server) =
        start_with("auth-many", &[], Some("manager"), ServerOptions::default());
    let address = server.local_addr();
    let system = logged_on(address, "system", "manager").await;
    system
        .batch_execute("create table t (n number); insert into t values (1)")
        .await
        .unwrap();
    let attempts: Vec<_> = (0..20)
        .map(|attempt| {
            tokio::spawn(async move {
                let password = format!("guess{attempt}");
                connect_as(address, "system", Some(&password))
                    .await
                    .is_err()
            })
        })
        .collect();
    for attempt in attempts {
        assert!(attempt.await.unwrap());
    }
    assert_eq!(first_value(&system, "select count(*) from t").await, "1");
    // Each refused logon's thread ends a moment after its client read the error.
    assert_eq!(
        server.wait_for_connection_threads(1, Duration::from_secs(30)),
        1,
        "a failed logon leaves no thread behind"
    );
    drop(system);
    assert_eq!(server.stop(), 0);
}
