//! The JVM client of docs/examples/FpdbCheck.java (java.net.http only),
//! compiled and run against a real `fpdb serve` where a JDK is installed.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::server::{create_db, Served};

const ARTICLE: &str = "今年春天雨水充足，山区的茶农们比往年提前十天开始采摘新茶。合作社负责人介绍，新建的加工车间让鲜叶当天就能完成杀青和揉捻。";
const OTHER: &str = "昨晚的足球联赛中，主队在补时阶段打进制胜球，以二比一战胜来访的卫冕冠军。";

#[test]
fn the_documented_jvm_client_checks_pages() {
    if Command::new("javac").arg("-version").output().is_err() {
        eprintln!("no JDK (javac) here: the JVM client is not compiled");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let source = fpdb_testkit::repo_dir().join("docs/examples/FpdbCheck.java");
    let classes = dir.path().join("classes");
    let compiled = Command::new("javac")
        .arg("-d")
        .arg(&classes)
        .arg(source)
        .output()
        .unwrap();
    assert!(
        compiled.status.success(),
        "{}",
        String::from_utf8_lossy(&compiled.stderr)
    );

    let db = create_db(dir.path(), "db", &["--expected", "1000"]);
    let served = Served::start(&db, &[]);
    let mut java = Command::new("java")
        .arg("-cp")
        .arg(&classes)
        .arg("FpdbCheck")
        .arg(format!("http://{}", served.addr))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let input = format!(
        "https://a.example/1\t{ARTICLE}\nhttps://b.example/2\t{}\nhttps://c.example/3\t{OTHER}\n",
        ARTICLE.replace('。', "！")
    );
    java.stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = java.wait_with_output().unwrap();
    assert!(output.status.success());
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "https://a.example/1\t\nhttps://b.example/2\thttps://a.example/1\nhttps://c.example/3\t\n"
    );
}
