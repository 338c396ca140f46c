//! The protocol fuzz test: connections that send random bytes, and valid message sequences
//! mutated (bytes flipped, lengths replaced by extreme values, messages cut short, repeated
//! or reordered), against one server. Whatever a fuzzing connection gets, the server must
//! not fall over: no connection's thread panics, a witness connection opened before keeps
//! answering, new connections log on, and when the fuzzing is over no connection thread is
//! left behind.
//!
//! Deterministic: the inputs come from a seeded generator (`SEED`; a failure names the
//! round to replay). Bounded: `ROUNDS` connections, each reading answers for at most
//! `READ_WINDOW`.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

mod common;
use common::{connect, start};

const SEED: u64 = 0x5059_5448_4941_4655; // "PYTHIAFU"
const ROUNDS: u64 = 400;
/// How long a fuzzing connection reads the server's answers before it hangs up.
const READ_WINDOW: Duration = Duration::from_millis(150);

/// SplitMix64: the inputs, reproducibly.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound.max(1)
    }
}

/// A typed message: type byte, length (itself included), body.
fn message(kind: u8, body: &[u8]) -> Vec<u8> {
    let mut bytes = vec![kind];
    bytes.extend_from_slice(&((body.len() + 4) as u32).to_be_bytes());
    bytes.extend_from_slice(body);
    bytes
}

fn cstring(text: &str) -> Vec<u8> {
    let mut bytes = text.as_bytes().to_vec();
    bytes.push(0);
    bytes
}

fn startup() -> Vec<u8> {
    let mut body = 196_608u32.to_be_bytes().to_vec(); // protocol 3.0
    for part in ["user", "system", "database", "pythia", ""] {
        body.extend(cstring(part));
    }
    let mut bytes = ((body.len() + 4) as u32).to_be_bytes().to_vec();
    bytes.extend(body);
    bytes
}

/// Valid conversations after the startup, each a list of messages.
fn conversations() -> Vec<Vec<Vec<u8>>> {
    let query = |sql: &str| message(b'Q', &cstring(sql));
    let parse = |name: &str, sql: &str| {
        let mut body = cstring(name);
        body.extend(cstring(sql));
        body.extend(0u16.to_be_bytes());
        message(b'P', &body)
    };
    let bind = |statement: &str, parameters: &[&[u8]]| {
        let mut body = cstring("");
        body.extend(cstring(statement));
        body.extend(1u16.to_be_bytes());
        body.extend(0u16.to_be_bytes());
        body.extend((parameters.len() as u16).to_be_bytes());
        for parameter in parameters {
            body.extend((parameter.len() as u32).to_be_bytes());
            body.extend_from_slice(parameter);
        }
        body.extend(0u16.to_be_bytes());
        message(b'B', &body)
    };
    let describe = message(b'D', &[b'P', 0]);
    let execute = {
        let mut body = cstring("");
        body.extend(0u32.to_be_bytes());
        message(b'E', &body)
    };
    let sync = message(b'S', &[]);
    vec![
        vec![query("select 1 from dual; select count(*) from fuzz")],
        vec![query("insert into fuzz values (1, 'a'); commit")],
        vec![
            parse("s1", "select b from fuzz where a = $1"),
            bind("s1", &[b"1"]),
            describe.clone(),
            execute.clone(),
            sync.clone(),
        ],
        vec![
            parse("", "update fuzz set b = $2 where a = $1"),
            bind("", &[b"1", b"z"]),
            execute,
            sync,
        ],
        vec![
            query("copy fuzz from stdin"),
            message(b'd', b"7\tseven\n"),
            message(b'c', &[]),
        ],
        vec![query("begin"), query("delete from fuzz"), query("rollback")],
        vec![message(b'X', &[])],
    ]
}

/// One fuzzing input: random bytes, or a conversation mutated.
fn input(rng: &mut Rng, conversations: &[Vec<Vec<u8>>]) -> Vec<u8> {
    match rng.below(4) {
        0 => (0..rng.below(2_000)).map(|_| rng.next() as u8).collect(),
        1 => {
            // A startup with a mangled length or body.
            let mut bytes = startup();
            mutate(rng, &mut bytes);
            bytes
        }
        _ => {
            let mut bytes = startup();
            for _ in 0..1 + rng.below(4) {
                let conversation = &conversations[rng.below(conversations.len() as u64) as usize];
                for message in conversation {
                    let mut message = message.clone();
                    if rng.below(3) == 0 {
                        mutate(rng, &mut message);
                    }
                    bytes.extend(message);
                }
            }
            bytes
        }
    }
}

fn mutate(rng: &mut Rng, bytes: &mut Vec<u8>) {
    if bytes.is_empty() {
        return;
    }
    match rng.below(5) {
        0 => {
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(bytes.len() as u64) as usize;
                bytes[at] ^= 1 << rng.below(8);
            }
        }
        1 if bytes.len() > 5 => {
            // An extreme length where the length field is.
            let lengths = [0u32, 3, 4, 0x7fff_ffff, 0xffff_ffff, 0x4000_0000];
            let length = lengths[rng.below(lengths.len() as u64) as usize];
            let at = if bytes[0].is_ascii_alphabetic() { 1 } else { 0 };
            bytes[at..at + 4].copy_from_slice(&length.to_be_bytes());
        }
        2 => {
            let keep = rng.below(bytes.len() as u64) as usize;
            bytes.truncate(keep);
        }
        3 => {
            let at = rng.below(bytes.len() as u64) as usize;
            let noise: Vec<u8> = (0..1 + rng.below(16)).map(|_| rng.next() as u8).collect();
            bytes.splice(at..at, noise);
        }
        _ => {
            let copy = bytes.clone();
            bytes.extend(copy);
        }
    }
}

/// Sends `input` and reads whatever comes back for `READ_WINDOW`.
fn fuzz_once(address: SocketAddr, input: &[u8]) {
    let Ok(mut socket) = TcpStream::connect(address) else {
        return;
    };
    let _ = socket.set_write_timeout(Some(Duration::from_secs(2)));
    let _ = socket.write_all(input);
    let _ = socket.set_read_timeout(Some(Duration::from_millis(20)));
    let started = Instant::now();
    let mut buffer = [0u8; 4096];
    while started.elapsed() < READ_WINDOW {
        match socket.read(&mut buffer) {
            Ok(0) => break,
            Ok(_) => {}
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => break,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_and_mutated_messages_leave_the_server_and_other_connections_working() {
    let (_instance, server) = start("fuzz", &[("processes", "40")]);
    let address = server.local_addr();
    let witness = connect(address).await.unwrap();
    witness
        .batch_execute(
            "create table fuzz (a int, b varchar2(10)); insert into fuzz values (1, 'x')",
        )
        .await
        .unwrap();
    let conversations = conversations();
    let mut rng = Rng(SEED);
    for round in 0..ROUNDS {
        let input = input(&mut rng, &conversations);
        tokio::task::spawn_blocking(move || fuzz_once(address, &input))
            .await
            .unwrap();
        if round % 50 == 49 {
            // The witness still answers, and a new connection logs on.
            let rows = witness
                .simple_query("select count(*) from dual")
                .await
                .unwrap_or_else(|error| panic!("after round {round}: {error}"));
            assert!(!rows.is_empty(), "after round {round}");
            let fresh = connect(address)
                .await
                .unwrap_or_else(|error| panic!("no logon after round {round}: {error}"));
            fresh.simple_query("select 1 from dual").await.unwrap();
        }
    }
    // Every fuzzing connection's thread ends (each closed its socket): only the witness's
    // is left (at most 30 s to get there, as in the other tests: on a loaded machine a
    // thread may see its socket's close late).
    assert_eq!(
        server.wait_for_connection_threads(1, Duration::from_secs(30)),
        1,
        "connection threads left behind"
    );
    // No input made a connection's thread panic (pgwire's decoders are patched for it:
    // vendor/pgwire/PATCHED.md).
    assert_eq!(server.connection_panics(), 0);
    witness.simple_query("select 1 from dual").await.unwrap();
    drop(witness);
    assert_eq!(server.stop(), 0);
}

/// Reads whole messages from `socket` until a ReadyForQuery or the end of the stream, and
/// returns them as (type, body).
fn read_messages(socket: &mut TcpStream) -> Vec<(u8, Vec<u8>)> {
    let mut messages = Vec::new();
    loop {
        let mut header = [0u8; 5];
        if socket.read_exact(&mut header).is_err() {
            return messages;
        }
        let length = u32::from_be_bytes(header[1..5].try_into().unwrap()) as usize;
        let mut body = vec![0u8; length.saturating_sub(4)];
        if socket.read_exact(&mut body).is_err() {
            return messages;
        }
        messages.push((header[0], body));
        if header[0] == b'Z' {
            return messages;
        }
    }
}

/// The bound on a client's message (64 MiB, `vendor/pgwire/PATCHED.md`): a Query of 1 MiB
/// runs; one whose header declares a byte past the bound is refused from the header alone,
/// with FATAL 08P01, and its connection closed, with no body ever sent; the server goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_past_the_bound_is_refused_from_its_header() {
    const BOUND: u32 = 64 * 1024 * 1024;
    let (_instance, server) = start("fuzz-bound", &[]);
    let address = server.local_addr();
    tokio::task::spawn_blocking(move || {
        let mut socket = TcpStream::connect(address).unwrap();
        socket
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        socket.write_all(&startup()).unwrap();
        assert_eq!(read_messages(&mut socket).last().unwrap().0, b'Z');
        let padded = format!("select 42 from dual -- {}", "x".repeat(1 << 20));
        socket.write_all(&message(b'Q', &cstring(&padded))).unwrap();
        let answer = read_messages(&mut socket);
        let row = answer.iter().find(|(kind, _)| *kind == b'D').unwrap();
        assert!(row.1.ends_with(b"42"), "{answer:?}");

        let mut header = vec![b'Q'];
        header.extend((BOUND + 1).to_be_bytes());
        socket.write_all(&header).unwrap();
        let refused = read_messages(&mut socket);
        let (kind, body) = refused.last().expect("an answer before the close");
        let text = String::from_utf8_lossy(body);
        assert_eq!(*kind, b'E', "{text}");
        assert!(text.contains("FATAL") && text.contains("08P01"), "{text}");
        let mut rest = Vec::new();
        assert_eq!(socket.read_to_end(&mut rest).unwrap(), 0, "closed");
    })
    .await
    .unwrap();
    // Nothing else is touched: a new connection runs a query.
    let client = connect(address).await.unwrap();
    let row = client
        .query_one("select 'alive' from dual", &[])
        .await
        .unwrap();
    assert_eq!(row.get::<_, String>(0), "alive");
    server.stop();
}
