use pythia::{Instance, Value};
fn main() {
    let dir = std::path::PathBuf::from("/tmp/zz_range");
    let _ = std::fs::remove_dir_all(&dir);
    let instance = Instance::open(&dir, &[]).unwrap();
    let mut s = instance.connect().unwrap();
    s.execute("create table bench (id number primary key, val number, pad varchar2(100))")
        .unwrap();
    let ins = s.prepare("insert into bench values (:1, :2, :3)").unwrap();
    for i in 1..=50_000i64 {
        s.execute_prepared(
            &ins,
            &[
                Value::integer(i),
                Value::integer(i % 97),
                Value::text("x".repeat(40)),
            ],
        )
        .unwrap();
    }
    s.execute("commit").unwrap();
    let n: i64 = std::env::args().nth(1).map_or(3000, |a| a.parse().unwrap());
    if std::env::args().nth(2).as_deref() == Some("point") {
        let point = s.prepare("select val from bench where id = :1").unwrap();
        let start = std::time::Instant::now();
        for k in 0..n {
            s.execute_prepared(&point, &[Value::integer(1 + (k * 7919) % 50_000)])
                .unwrap();
        }
        println!(
            "{} point selects/s",
            n as f64 / start.elapsed().as_secs_f64()
        );
        return;
    }
    let range = s
        .prepare("select sum(val) from bench where id between :1 and :2")
        .unwrap();
    let start = std::time::Instant::now();
    for k in 0..n {
        let low = 1 + (k * 7919) % 49_000;
        s.execute_prepared(&range, &[Value::integer(low), Value::integer(low + 999)])
            .unwrap();
    }
    let e = start.elapsed();
    println!(
        "{} range scans/s, {:.0} ns/row",
        n as f64 / e.as_secs_f64(),
        e.as_nanos() as f64 / (n as f64 * 1000.0)
    );
}
