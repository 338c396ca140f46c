//! The real PostgreSQL clients, which nobody on this project wrote, against `pythia serve`:
//! psql, pgbench, psycopg 3 and pgjdbc, as `scripts/install_pg_clients.sh` installs them (the test
//! command, `scripts/test.sh`, runs it first). A missing client fails the test with the
//! script's name: these tests never pass by skipping.
//!
//! Each client runs as a child process against a server on a free loopback port, bounded
//! in time (`CLIENT_TIMEOUT`): a hung protocol exchange fails the test instead of hanging
//! it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

mod common;
use common::{start, start_with};
use pythia_server::programs::{run_to_end, Ended};

/// The longest a client process may run before the test kills it and fails.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(300);

const INSTALL: &str = "scripts/install_pg_clients.sh";

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A client program: on PATH, or in Debian's PostgreSQL 15 directory.
fn client(name: &str) -> PathBuf {
    let debian = Path::new("/usr/lib/postgresql/15/bin").join(name);
    if debian.exists() {
        return debian;
    }
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|directory| directory.join(name))
                .find(|candidate| candidate.exists())
        })
        .unwrap_or_else(|| panic!("{name} is not installed: run {INSTALL}"))
}

/// The Python that has psycopg 3.
fn python() -> PathBuf {
    let python = std::env::var_os("PYTHIA_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/pg-clients/venv/bin/python"));
    assert!(
        python.exists(),
        "{} has no psycopg: run {INSTALL}",
        python.display()
    );
    python
}

/// pgjdbc's jar, as the install script fetches it.
fn pgjdbc() -> PathBuf {
    let jar = workspace_root().join("target/pg-clients/jdbc/postgresql-42.7.14.jar");
    assert!(jar.exists(), "{} is missing: run {INSTALL}", jar.display());
    jar
}

/// Runs `command` to its end (at most `CLIENT_TIMEOUT`, else the test fails with what it
/// printed) and returns its output, whatever its exit status.
fn finish(command: &mut Command) -> Output {
    let shown = format!("{command:?}");
    match run_to_end(command, CLIENT_TIMEOUT) {
        Ok(Ended::Exited(output)) => output,
        Ok(Ended::TimedOut(output)) => panic!(
            "{shown} ran longer than {CLIENT_TIMEOUT:?}\nstdout:\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
        Err(error) => panic!("{shown}: {error}"),
    }
}

/// [`finish`], and fails the test with the output unless `command` exits 0.
fn run(command: &mut Command) -> Output {
    let shown = format!("{command:?}");
    let output = finish(command);
    assert!(
        output.status.success(),
        "{shown} failed ({})\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

#[test]
fn pgjdbc_runs_a_java_applications_work() {
    let (_instance, server) = start("clients-pgjdbc", &[]);
    let address = server.local_addr();
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/JdbcCheck.java");
    let output = run(Command::new("java")
        .arg("-cp")
        .arg(pgjdbc())
        .arg(program)
        .arg(address.ip().to_string())
        .arg(address.port().to_string()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("all checks passed"), "{stdout}");
    assert_eq!(server.stop(), 0);
}

#[test]
fn psycopg_3_runs_a_python_applications_work() {
    let (_instance, server) = start("clients-psycopg", &[]);
    let address = server.local_addr();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/psycopg_check.py");
    let output = run(Command::new(python())
        .arg(script)
        .arg(address.ip().to_string())
        .arg(address.port().to_string()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("all checks passed"), "{stdout}");
    assert_eq!(server.stop(), 0);
}

/// `psql -X OPTIONS` logged on to `address` as SYSTEM, to be given its commands.
fn psql_command(address: std::net::SocketAddr, options: &[&str]) -> Command {
    let mut command = Command::new(client("psql"));
    command
        .arg("-X")
        .args(options)
        .arg("-h")
        .arg(address.ip().to_string())
        .arg("-p")
        .arg(address.port().to_string())
        .args(["-U", "system", "-d", "pythia"]);
    command
}

/// `psql -c` against `address`, each command in turn; its standard output.
fn psql(address: std::net::SocketAddr, commands: &[&str]) -> String {
    let mut command = psql_command(address, &["-v", "ON_ERROR_STOP=1"]);
    for sql in commands {
        command.arg("-c").arg(sql);
    }
    String::from_utf8(run(&mut command).stdout).unwrap()
}

/// `pgbench` against `address` with `arguments`; its standard output.
fn pgbench(address: std::net::SocketAddr, arguments: &[&str]) -> String {
    let mut command = Command::new(client("pgbench"));
    command
        .arg("-h")
        .arg(address.ip().to_string())
        .arg("-p")
        .arg(address.port().to_string())
        .args(["-U", "system"])
        .args(arguments)
        .arg("pythia");
    String::from_utf8(run(&mut command).stdout).unwrap()
}

/// The one number on the line of pgbench's report that starts with `label`.
fn reported(report: &str, label: &str) -> String {
    report
        .lines()
        .find_map(|line| line.trim().strip_prefix(label))
        .unwrap_or_else(|| panic!("no '{label}' in:\n{report}"))
        .trim()
        .to_string()
}

/// The sums pgbench's transactions keep equal: accounts, tellers, branches, history.
fn balances(address: std::net::SocketAddr) -> Vec<String> {
    let out = psql(
        address,
        &[
            "select (select sum(abalance) from pgbench_accounts) || ',' || \
              (select sum(tbalance) from pgbench_tellers) || ',' || \
              (select sum(bbalance) from pgbench_branches) || ',' || \
              (select sum(delta) from pgbench_history) from dual",
        ],
    );
    let line = out
        .lines()
        .nth(2)
        .unwrap_or_else(|| panic!("no sums in:\n{out}"));
    line.trim().split(',').map(str::to_string).collect()
}

#[test]
fn pgbench_initializes_and_runs_its_scripts_in_every_query_mode() {
    let (_instance, server) = start("clients-pgbench", &[("processes", "40")]);
    let address = server.local_addr();
    // The default steps: the tables, COPY of the accounts (client-side generate), VACUUM,
    // the primary keys.
    pgbench(address, &["-i", "-s", "1", "-q"]);
    assert_eq!(
        psql(address, &["select count(*) from pgbench_accounts"])
            .lines()
            .nth(2)
            .map(str::trim),
        Some("100000")
    );
    // Every built-in script in every query mode, with 1, 8 and 32 clients in turn: no
    // transaction fails, and every one asked for is done.
    // tpcb-like first: until simple-update runs, all four sums are equal.
    let runs = [
        ("tpcb-like", "simple", "1"),
        ("tpcb-like", "extended", "8"),
        ("tpcb-like", "prepared", "32"),
        ("simple-update", "simple", "8"),
        ("simple-update", "extended", "1"),
        ("simple-update", "prepared", "8"),
        ("select-only", "simple", "8"),
        ("select-only", "extended", "32"),
        ("select-only", "prepared", "1"),
    ];
    for (script, mode, clients) in runs {
        let transactions = 64;
        let report = pgbench(
            address,
            &[
                "-n",
                "-b",
                script,
                "-M",
                mode,
                "-c",
                clients,
                "-j",
                "2",
                "-t",
                &transactions.to_string(),
            ],
        );
        let expected = transactions * clients.parse::<u64>().unwrap();
        assert_eq!(
            reported(&report, "number of transactions actually processed:"),
            format!("{expected}/{expected}"),
            "{script} -M {mode} -c {clients}:\n{report}"
        );
        assert!(
            reported(&report, "number of failed transactions:").starts_with("0 "),
            "{script} -M {mode} -c {clients}:\n{report}"
        );
        // The balances add up: tpcb-like gives each delta to an account, a teller, a
        // branch and history; simple-update to an account and history only.
        let sums = balances(address);
        assert_eq!(sums.len(), 4, "{sums:?}");
        assert_eq!(
            sums[0], sums[3],
            "accounts and history after {script}: {sums:?}"
        );
        assert_eq!(
            sums[1], sums[2],
            "tellers and branches after {script}: {sums:?}"
        );
        if script == "tpcb-like" {
            assert_eq!(sums[0], sums[1], "after {script}: {sums:?}");
        }
    }
    assert_eq!(server.stop(), 0);
}

#[test]
fn psql_describes_tables_as_it_describes_postgresqls() {
    let (_instance, server) = start("clients-psql", &[]);
    let address = server.local_addr();
    psql(
        address,
        &[
            "create table pgbench_accounts (aid int not null primary key, bid int, \
           abalance int, filler char(84))",
        ],
    );
    let listed = psql(address, &["\\dt"]);
    assert!(
        listed.contains("pgbench_accounts | table"),
        "\\dt printed:\n{listed}"
    );
    let described = psql(address, &["\\d pgbench_accounts"]);
    for line in [
        "Table \"system.pgbench_accounts\"",
        "aid      | integer       |           | not null |",
        "filler   | character(84) |           |          |",
        "PRIMARY KEY, btree (aid)",
    ] {
        assert!(described.contains(line), "no '{line}' in:\n{described}");
    }
    // An error keeps its ORA- text and psql's caret; the server goes on.
    let output = finish(&mut psql_command(address, &["-c", "select * from missing"]));
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("ORA-00942"), "{error}");
    assert!(psql(address, &["select 1 from dual"]).contains("(1 row)"));
    assert_eq!(server.stop(), 0);
}

/// psql shows a CALL's OUT parameters as a row and DBMS_OUTPUT's lines as NOTICEs, as it
/// shows PostgreSQL's CALL and RAISE NOTICE.
#[test]
fn psql_shows_a_calls_out_parameters_and_dbms_output_as_notices() {
    let (_instance, server) = start("clients-psql-plsql", &[]);
    let address = server.local_addr();
    psql(
        address,
        &["create procedure twice(a number, b out number) is \
           begin b := a * 2; dbms_output.put_line('doubled ' || a); end;"],
    );
    let output = finish(&mut psql_command(
        address,
        &[
            "-c",
            "call twice(21, null)",
            "-c",
            "begin dbms_output.put_line('from a block'); end;",
        ],
    ));
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert!(stdout.contains(" b  \n----\n 42\n(1 row)"), "{stdout}");
    assert!(stderr.contains("NOTICE:  doubled 21"), "{stderr}");
    assert!(stderr.contains("NOTICE:  from a block"), "{stderr}");
    assert!(stdout.contains("DO"), "{stdout}");
    assert_eq!(server.stop(), 0);
}

/// psql and psycopg 3 log on with SCRAM-SHA-256 (libpq's own implementation): the right
/// password works, a wrong one gets ORA-01017.
#[test]
fn psql_and_psycopg_log_on_with_a_password() {
    let (_instance, server) = start_with(
        "clients-password",
        &[],
        Some("manager"),
        pythia_server::ServerOptions::default(),
    );
    let address = server.local_addr();
    let psql = |password: &str| {
        finish(
            psql_command(address, &["-A", "-t", "-w", "-c", "select user from dual"])
                .env("PGPASSWORD", password),
        )
    };
    let output = psql("manager");
    assert!(output.status.success(), "{output:?}");
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "SYSTEM");
    let output = psql("wrong");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("ORA-01017: invalid username/password; logon denied"),
        "{stderr}"
    );
    let script = "import sys, psycopg\n\
        host, port = sys.argv[1], sys.argv[2]\n\
        info = f'host={host} port={port} user=system dbname=pythia connect_timeout=10'\n\
        with psycopg.connect(info + ' password=manager') as connection:\n\
        \x20   print(connection.execute('select user from dual').fetchone()[0])\n\
        try:\n\
        \x20   psycopg.connect(info + ' password=wrong')\n\
        except psycopg.OperationalError as error:\n\
        \x20   print('refused', 'ORA-01017' in str(error))\n";
    let output = run(Command::new(python())
        .arg("-c")
        .arg(script)
        .arg(address.ip().to_string())
        .arg(address.port().to_string()));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "SYSTEM\nrefused True\n"
    );
    assert_eq!(server.stop(), 0);
}
