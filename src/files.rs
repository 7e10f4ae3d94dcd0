//! Files the program reads as source and files it writes: scripts are read
//! with a size bound and only from regular files; every file DGL writes
//! (`save_npy`, `dgl test --bless`) goes through one atomic writer, so a
//! failed or interrupted write leaves the previous file intact.

use std::io::{self, Read, Write};
use std::path::Path;

/// The largest script or module DGL reads: 64 MiB (bytes), far beyond any
/// hand-written program, small enough that a mistaken `/dev/zero`-like input
/// cannot exhaust memory.
pub const MAX_SOURCE_BYTES: u64 = 64 << 20;

/// Reads the source text of a script or module.
///
/// Errors (the message, without the `IOError: ` kind): the file cannot be
/// opened; it is a folder, FIFO, device or socket (reading those could block
/// forever or never end); it is larger than [`MAX_SOURCE_BYTES`]; it is not UTF-8.
pub fn read_source(path: &Path) -> Result<String, String> {
    let shown = path.display();
    // `metadata` does not open the file, so a FIFO cannot block here.
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot open '{shown}': {e}"))?;
    if meta.is_dir() {
        return Err(format!("cannot run '{shown}': it is a folder"));
    }
    if !meta.is_file() {
        return Err(format!("cannot run '{shown}': not a regular file (a FIFO, device or socket)"));
    }
    let too_big =
        || format!("cannot run '{shown}': larger than the {} MiB limit for a source file", MAX_SOURCE_BYTES >> 20);
    if meta.len() > MAX_SOURCE_BYTES {
        return Err(too_big());
    }
    let file = std::fs::File::open(path).map_err(|e| format!("cannot open '{shown}': {e}"))?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // The file may grow between the check and the read: read one byte past the limit at most.
    file.take(MAX_SOURCE_BYTES + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read '{shown}': {e}"))?;
    if bytes.len() as u64 > MAX_SOURCE_BYTES {
        return Err(too_big());
    }
    String::from_utf8(bytes).map_err(|_| format!("'{shown}' is not UTF-8 text"))
}

/// Writes the file at `path` atomically: `write` fills a temporary file in the
/// same folder, which is flushed, synced to disk and then renamed over `path`.
/// Readers see the old file or the new one, never a truncated mix; on any
/// error the temporary file is removed and `path` is untouched.
///
/// A symlink is followed (the file it names is replaced, the link stays). A
/// device or FIFO (`/dev/stdout`) cannot be replaced, only written: it is
/// written directly. Errors: any I/O error, and a folder at `path`.
pub fn write_atomic(path: &Path, write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    let target = match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => return Err(io::Error::other("it is a folder")),
        Ok(meta) if !meta.is_file() => {
            let mut w = io::BufWriter::new(std::fs::OpenOptions::new().write(true).open(path)?);
            write(&mut w)?;
            return w.flush();
        }
        Ok(_) => std::fs::canonicalize(path)?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => path.to_path_buf(),
        Err(e) => return Err(e),
    };
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // The temporary file would be private (0600): a new file gets the usual 0644, a replaced
    // one keeps its own permissions.
    let mut builder = tempfile::Builder::new();
    builder.prefix(".dgl-tmp-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&target).map_or(0o644, |m| m.permissions().mode() & 0o7777);
        builder.permissions(std::fs::Permissions::from_mode(mode));
    }
    // tempfile's errors name its random temporary path, which the user never chose: report the
    // OS's reason alone (the caller names the user's path).
    let mut tmp = builder.tempfile_in(dir).map_err(|e| {
        let text = e.to_string();
        io::Error::new(e.kind(), text.split(" at path ").next().unwrap_or(&text).to_string())
    })?;
    {
        let mut w = io::BufWriter::new(tmp.as_file_mut());
        write(&mut w)?;
        w.flush()?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(&target).map_err(|e| e.error)?;
    // Make the rename itself durable; not every platform can sync a folder.
    #[cfg(unix)]
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_new_file_is_readable_by_others_and_a_replaced_one_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("picture.svg");
        write_atomic(&path, |w| w.write_all(b"<svg/>")).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o644);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic(&path, |w| w.write_all(b"<svg></svg>")).unwrap();
        assert_eq!(mode(&path), 0o600);
    }

    #[test]
    fn a_failed_write_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.txt");
        write_atomic(&path, |w| w.write_all(b"old")).unwrap();
        let r = write_atomic(&path, |w| {
            w.write_all(b"partial")?;
            Err(io::Error::other("disk on fire"))
        });
        assert!(r.is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        // No temporary file is left behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        write_atomic(&path, |w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        // Through a symlink, the file it names is replaced and the link stays.
        #[cfg(unix)]
        {
            let link = dir.path().join("link.txt");
            std::os::unix::fs::symlink(&path, &link).unwrap();
            write_atomic(&link, |w| w.write_all(b"via link")).unwrap();
            assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
            assert_eq!(std::fs::read_to_string(&path).unwrap(), "via link");
        }
    }

    #[test]
    fn devices_are_written_not_replaced() {
        write_atomic(Path::new("/dev/null"), |w| w.write_all(b"x")).unwrap();
        assert!(!std::fs::metadata("/dev/null").unwrap().is_file());
        assert!(write_atomic(Path::new("/dev/full"), |w| w.write_all(b"x")).is_err());
        assert!(write_atomic(Path::new("."), |w| w.write_all(b"x")).is_err());
    }

    #[test]
    fn sources_must_be_small_regular_files() {
        assert!(read_source(Path::new("/dev/zero")).unwrap_err().contains("not a regular file"));
        assert!(read_source(Path::new(".")).unwrap_err().contains("folder"));
        assert!(read_source(Path::new("/no/such/file.dgl")).unwrap_err().starts_with("cannot open"));
    }
}
