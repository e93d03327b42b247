//! A QEMU machine under TCG, bounded in time: its console (the first serial port) in a file,
//! the test's shell on the second ([`crate::disk`]), its only network QEMU's user network
//! with `restrict=on` (no route out; the guest reaches only the built-in DHCP and what
//! [`Forward`]s hand to servers on the machine's loopback).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use real_host::{Error, Result};

use crate::disk::SHELL_READY;
use crate::standins::io;

/// OVMF, the UEFI firmware for QEMU (Debian's `ovmf`), code and variables in one image.
pub const OVMF: &str = "/usr/share/ovmf/OVMF.fd";

/// Lines of the console an error ends with.
const CONSOLE_LINES: usize = 40;

/// How the machine boots.
#[derive(Debug, Clone)]
pub enum Boot {
    /// The firmware boots from the network (SeaBIOS runs QEMU's iPXE ROM).
    Network,
    /// From the CD-ROM's EFI boot image (El Torito), the firmware being OVMF (UEFI) instead
    /// of SeaBIOS.
    CdromUefi(PathBuf),
    /// From the first disk, else from the CD-ROM, as a machine racked with an empty disk and
    /// an installer ISO: the CD until something is installed on the disk.
    DiskThenCdrom(PathBuf),
}

/// A guest address and port handed to a server on the machine's loopback (QEMU's
/// `guestfwd`, each guest connection relayed by `busybox nc`).
#[derive(Debug, Clone)]
pub struct Forward {
    /// The address the guest connects to, in the user network.
    pub address: String,
    /// Its port.
    pub port: u16,
    /// The loopback port of the server.
    pub to: u16,
}

/// QEMU's user network, restricted.
#[derive(Debug, Clone)]
pub struct Network {
    /// The network (`net=`), e.g. the site's machine network `192.168.111.0/24`.
    pub net: String,
    /// The boot file DHCP names (iPXE fetches and runs it).
    pub bootfile: Option<String>,
    /// The guest connections handed to servers of the test.
    pub forwards: Vec<Forward>,
}

/// What to start.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The machine's name (its files under the work directory).
    pub name: String,
    /// How it boots.
    pub boot: Boot,
    /// Its virtio disks, each opened with `snapshot=on` (the file never changes).
    pub disks: Vec<PathBuf>,
    /// Its network, if any.
    pub network: Option<Network>,
    /// Memory in MiB.
    pub memory_mib: u32,
    /// The longest the machine may live; QEMU is killed then whatever happens.
    pub life: Duration,
}

/// A running machine; killed when dropped.
pub struct Machine {
    child: Child,
    stdin: ChildStdin,
    shell: Arc<Mutex<Vec<u8>>>,
    /// Where its console goes.
    pub console: PathBuf,
    /// When it started.
    pub started: Instant,
    commands: u32,
}

impl Drop for Machine {
    /// Ends QEMU: SIGTERM to `timeout`, which passes it on to QEMU and exits with it (a
    /// SIGKILL would end `timeout` alone and leave QEMU running).
    fn drop(&mut self) {
        if let Ok(pid) = i32::try_from(self.child.id()) {
            // SAFETY: kill(2) on our own child's process id, which we have not reaped yet.
            unsafe { libc::kill(pid, libc::SIGTERM) };
        }
        let until = Instant::now() + Duration::from_secs(10);
        while Instant::now() < until && !self.exited() {
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Spec {
    /// QEMU's arguments.
    fn args(&self, console: &Path) -> Vec<String> {
        let mut args: Vec<String> = [
            "-machine",
            "pc",
            "-accel",
            "tcg",
            "-smp",
            "1",
            "-display",
            "none",
            "-monitor",
            "none",
            "-nodefaults",
            "-vga",
            "none",
        ]
        .map(str::to_string)
        .to_vec();
        args.extend(["-m".into(), self.memory_mib.to_string()]);
        args.extend(["-serial".into(), format!("file:{}", console.display())]);
        args.extend(["-serial".into(), "stdio".into()]);
        for disk in &self.disks {
            args.extend([
                "-drive".into(),
                format!(
                    "file={},if=virtio,format=raw,snapshot=on,detect-zeroes=on",
                    disk.display()
                ),
            ]);
        }
        let cdrom = |iso: &Path| format!("file={},media=cdrom,readonly=on", iso.display());
        match &self.boot {
            Boot::Network => args.extend(["-boot".into(), "n".into()]),
            Boot::CdromUefi(iso) => args.extend([
                "-bios".into(),
                OVMF.into(),
                "-drive".into(),
                format!("if=none,id=cd0,{}", cdrom(iso)),
                "-device".into(),
                "ide-cd,drive=cd0,bootindex=0".into(),
            ]),
            Boot::DiskThenCdrom(iso) => args.extend([
                "-drive".into(),
                cdrom(iso),
                "-boot".into(),
                "order=cd".into(),
            ]),
        }
        match &self.network {
            Some(net) => {
                let mut netdev = format!("user,id=n0,restrict=on,net={}", net.net);
                if let Some(bootfile) = &net.bootfile {
                    netdev.push_str(&format!(",bootfile={bootfile}"));
                }
                for f in &net.forwards {
                    netdev.push_str(&format!(
                        ",guestfwd=tcp:{}:{}-cmd:busybox nc 127.0.0.1 {}",
                        f.address, f.port, f.to
                    ));
                }
                args.extend([
                    "-netdev".into(),
                    netdev,
                    "-device".into(),
                    "virtio-net-pci,netdev=n0".into(),
                ]);
            }
            None => args.extend(["-nic".into(), "none".into()]),
        }
        args
    }
}

impl Machine {
    /// Starts `spec` with its files under `work`.
    pub fn start(spec: &Spec, work: &Path) -> Result<Machine> {
        std::fs::create_dir_all(work).map_err(io(work))?;
        let console = work.join(format!("{}.console.log", spec.name));
        std::fs::write(&console, "").map_err(io(&console))?;
        let mut cmd = Command::new("timeout");
        cmd.args(["-s", "KILL", &format!("{}s", spec.life.as_secs())])
            .arg("qemu-system-x86_64")
            .args(spec.args(&console))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd.spawn().map_err(|source| Error::Spawn {
            command: testkit::run::command_line(&cmd),
            source,
        })?;
        let stdin = child.stdin.take().expect("piped stdin");
        let mut stdout = child.stdout.take().expect("piped stdout");
        let shell = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&shell);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .expect("shell buffer")
                    .extend_from_slice(&buf[..n]);
            }
        });
        Ok(Machine {
            child,
            stdin,
            shell,
            console,
            started: Instant::now(),
            commands: 0,
        })
    }

    /// The console so far.
    pub fn console_text(&self) -> String {
        String::from_utf8_lossy(&std::fs::read(&self.console).unwrap_or_default()).replace('\r', "")
    }

    /// A timeout error for `what`, with the console's last lines.
    fn timeout(&self, what: &str, seconds: u64) -> Error {
        Error::Timeout {
            what: format!("{what} (machine up {} s)", self.started.elapsed().as_secs()),
            seconds,
            detail: format!(
                "the console's last lines:\n{}",
                testkit::run::tail(&self.console_text(), CONSOLE_LINES)
            ),
        }
    }

    /// Waits until the console shows `needle`.
    pub fn wait_console(&mut self, needle: &str, seconds: u64) -> Result<()> {
        let until = Instant::now() + Duration::from_secs(seconds);
        while Instant::now() < until {
            if self.console_text().contains(needle) {
                return Ok(());
            }
            if self.exited() {
                return Err(self.timeout(&format!("QEMU exited before `{needle}`"), seconds));
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        Err(self.timeout(&format!("the console did not show `{needle}`"), seconds))
    }

    fn exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    fn shell_text(&self) -> String {
        String::from_utf8_lossy(&self.shell.lock().expect("shell buffer")).into_owned()
    }

    /// Waits until the booted system's shell is up (the system has switched to its root).
    pub fn wait_shell(&mut self, seconds: u64) -> Result<()> {
        self.wait_shell_since(0, seconds)
    }

    /// Where the shell's output is now, for [`Machine::wait_shell_since`].
    pub fn shell_mark(&self) -> usize {
        self.shell.lock().expect("shell buffer").len()
    }

    /// Waits until a shell is up that said so after `mark` (the system booted again).
    pub fn wait_shell_since(&mut self, mark: usize, seconds: u64) -> Result<()> {
        let until = Instant::now() + Duration::from_secs(seconds);
        while Instant::now() < until {
            let said = {
                let all = self.shell.lock().expect("shell buffer");
                String::from_utf8_lossy(&all[mark.min(all.len())..]).contains(SHELL_READY)
            };
            if said {
                return Ok(());
            }
            if self.exited() {
                return Err(self.timeout("QEMU exited before the system's shell was up", seconds));
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        Err(self.timeout("the booted system's shell did not come up", seconds))
    }

    /// Runs `script` in the booted system's shell; its exit code and output (both streams).
    pub fn run(&mut self, script: &str, seconds: u64) -> Result<(i32, String)> {
        self.commands += 1;
        let marker = format!("@@okd-vm-done-{}", self.commands);
        let start = self.shell.lock().expect("shell buffer").len();
        let line = format!("( {script}\n) 2>&1; echo \"{marker} $?\"\n");
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.flush())
            .map_err(io(Path::new("QEMU's standard input")))?;
        let until = Instant::now() + Duration::from_secs(seconds);
        let mut sent_at = start;
        while Instant::now() < until {
            let text = {
                let all = self.shell.lock().expect("shell buffer");
                String::from_utf8_lossy(&all[start.min(all.len())..]).into_owned()
            };
            // The shell started again after the line was written (its unit restarts it when
            // the port is hung up, and a new open flushes what waited unread): write it again.
            // A script given here must therefore be safe to run twice.
            let since_sent = &text[(sent_at - start).min(text.len())..];
            if since_sent.contains(SHELL_READY) && !text.contains(&format!("{marker} ")) {
                sent_at = start + text.len();
                self.stdin
                    .write_all(line.as_bytes())
                    .and_then(|()| self.stdin.flush())
                    .map_err(io(Path::new("QEMU's standard input")))?;
            }
            if let Some(at) = text.find(&format!("{marker} ")) {
                let code = text[at + marker.len() + 1..]
                    .lines()
                    .next()
                    .and_then(|c| c.trim().parse().ok())
                    .unwrap_or(-1);
                return Ok((code, text[..at].to_string()));
            }
            if self.exited() {
                break;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        let shell = self.shell_text();
        let mut e = self.timeout(&format!("`{script}` did not finish in the guest"), seconds);
        if let Error::Timeout { detail, .. } = &mut e {
            detail.push_str(&format!(
                "\nthe test's shell's last lines:\n{}",
                testkit::run::tail(&shell, CONSOLE_LINES)
            ));
        }
        Err(e)
    }

    /// Runs `script` and returns its output; an error when it exits non-zero.
    pub fn output(&mut self, script: &str, seconds: u64) -> Result<String> {
        let (code, out) = self.run(script, seconds)?;
        if code != 0 {
            return Err(Error::Command {
                command: format!("(in the guest) {script}"),
                status: format!("exit {code}"),
                output: out,
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_network_is_restricted_and_forwards_only_to_loopback() {
        let spec = Spec {
            name: "t".into(),
            boot: Boot::Network,
            disks: vec![PathBuf::from("/d.ext4")],
            network: Some(Network {
                net: "192.168.111.0/24".into(),
                bootfile: Some("http://192.168.111.100/w.ipxe".into()),
                forwards: vec![Forward {
                    address: "192.168.111.100".into(),
                    port: 80,
                    to: 4321,
                }],
            }),
            memory_mib: 1024,
            life: Duration::from_secs(60),
        };
        let args = spec.args(Path::new("/c.log"));
        let netdev = &args[args.iter().position(|a| a == "-netdev").unwrap() + 1];
        assert!(netdev.starts_with("user,id=n0,restrict=on,net=192.168.111.0/24,"));
        assert!(netdev.contains("guestfwd=tcp:192.168.111.100:80-cmd:busybox nc 127.0.0.1 4321"));
        assert!(args.windows(2).any(|w| w == ["-accel", "tcg"]));
        assert!(args.iter().any(|a| a.contains(",snapshot=on")));
    }

    #[test]
    fn an_installing_machine_tries_its_disk_first_and_uefi_boots_the_cd_with_ovmf() {
        let spec = |boot| Spec {
            name: "t".into(),
            boot,
            disks: vec![PathBuf::from("/disk.raw")],
            network: None,
            memory_mib: 1024,
            life: Duration::from_secs(60),
        };
        let iso = PathBuf::from("/w.iso");
        let installing = spec(Boot::DiskThenCdrom(iso.clone())).args(Path::new("/c.log"));
        assert!(installing.windows(2).any(|w| w == ["-boot", "order=cd"]));
        assert!(!installing.iter().any(|a| a == "-bios"));
        let uefi = spec(Boot::CdromUefi(iso)).args(Path::new("/c.log"));
        assert!(uefi.windows(2).any(|w| w == ["-bios", OVMF]));
        assert!(uefi.iter().any(|a| a.ends_with("bootindex=0")));
    }
}
