//! The file-system floor for `benches/run.sh`: writes every regular file of a generated tree
//! (`SRC`) into an empty folder (`DEST`) with the same bytes, each through a temp file beside
//! it and a rename, as plainly as Rust can, on one thread. A first `generate` cannot beat
//! this by much: it is what creating those files costs on this disk.
//!
//!     cargo run --release --example floor -- SRC DEST
//!
//! The file list and bytes are read before the clock starts, and the time is printed in
//! milliseconds; hyperfine times the whole process anyway, as it does ixgen's.

use std::io::Write;
use std::path::{Path, PathBuf};

fn walk(dir: &Path, rel: &Path, files: &mut Vec<(PathBuf, Vec<u8>)>) {
    for e in std::fs::read_dir(dir).expect("SRC is readable").flatten() {
        let t = e.file_type().expect("a file type");
        let r = rel.join(e.file_name());
        if t.is_dir() {
            walk(&e.path(), &r, files);
        } else if t.is_file() {
            files.push((r, std::fs::read(e.path()).expect("a readable file")));
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [src, dest] = args.as_slice() else {
        eprintln!("usage: floor SRC DEST");
        std::process::exit(2);
    };
    let mut files = Vec::new();
    walk(Path::new(src), Path::new(""), &mut files);
    let dest = Path::new(dest);
    let start = std::time::Instant::now();
    for (rel, bytes) in &files {
        let full = dest.join(rel);
        let dir = full.parent().expect("a file has a folder");
        std::fs::create_dir_all(dir).expect("DEST is writable");
        let tmp = dir.join(format!(".floor-{}.tmp", rel.file_name().unwrap().to_string_lossy()));
        let mut f = std::fs::File::create_new(&tmp).expect("a new temp file");
        f.write_all(bytes).expect("written");
        drop(f);
        std::fs::rename(&tmp, &full).expect("renamed");
    }
    eprintln!(
        "{} files in {:.1} ms",
        files.len(),
        start.elapsed().as_secs_f64() * 1000.0
    );
}
