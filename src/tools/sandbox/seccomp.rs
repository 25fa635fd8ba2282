//! The socket filter of the Linux sandbox: a classic-BPF seccomp program that refuses
//! `socket(AF_UNIX, …)`, the `socketcall` multiplexer of 32-bit programs, and io_uring
//! (`io_uring_setup`, `io_uring_enter`, `io_uring_register`), whose `IORING_OP_SOCKET`
//! creates a socket without the `socket` system call.
//!
//! A sandboxed command must not reach a server running outside the sandbox through a
//! Unix socket: the Docker daemon, systemd, D-Bus, a tmux or screen server would act for
//! it outside every wall. Unix sockets are files, not network, so an unshared network
//! does not stop them, and the user's own uid passes their permission checks. Refusing
//! to create the socket does. `socketpair` (private pipes) stays allowed.
//!
//! The program is plain bytes (`struct sock_filter` in native byte order); bubblewrap
//! loads it with `--seccomp FD`. Only little-endian x86_64 and aarch64 are supported;
//! elsewhere there is no filter and so no sandbox.
//!
//! **Invariant:** on a supported architecture, every system call number that creates a
//! socket of any ABI the kernel accepts for that architecture is checked or refused;
//! everything else is allowed unchanged.

/// `struct seccomp_data`: the syscall number, the audit architecture, then the arguments.
const OFFSET_NR: u32 = 0;
const OFFSET_ARCH: u32 = 4;
/// The low 32 bits of the first argument (little-endian).
const OFFSET_ARG0_LOW: u32 = 16;

const AF_UNIX: u32 = 1;
const EACCES: u32 = 13;
const RET_ALLOW: u32 = 0x7fff_0000;
const RET_ERRNO: u32 = 0x0005_0000;

const AUDIT_ARCH_X86_64: u32 = 0xC000_003E;
const AUDIT_ARCH_I386: u32 = 0x4000_0003;
const AUDIT_ARCH_AARCH64: u32 = 0xC000_00B7;
const AUDIT_ARCH_ARM: u32 = 0x4000_0028;
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// One classic-BPF instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Insn {
    pub code: u16,
    pub jt: u8,
    pub jf: u8,
    pub k: u32,
}

const LD_W_ABS: u16 = 0x20;
const JMP_JEQ_K: u16 = 0x15;
const RET_K: u16 = 0x06;

fn load(offset: u32) -> Insn {
    Insn {
        code: LD_W_ABS,
        jt: 0,
        jf: 0,
        k: offset,
    }
}

fn ret(value: u32) -> Insn {
    Insn {
        code: RET_K,
        jt: 0,
        jf: 0,
        k: value,
    }
}

/// The syscall numbers of one ABI: `socket`, checked for its family, and the calls
/// refused whatever their arguments (`socketcall` where the ABI has it, io_uring).
struct Abi {
    arch: u32,
    socket: &'static [u32],
    denied: &'static [u32],
}

/// `io_uring_setup`, `io_uring_enter` and `io_uring_register`: the same numbers on every
/// ABI since Linux 5.1's unified table.
const IO_URING: [u32; 3] = [425, 426, 427];

/// x86_64 and the x32 ABI (same audit architecture, numbers with bit 30 set), and
/// 32-bit x86 programs.
const X86_64: &[Abi] = &[
    Abi {
        arch: AUDIT_ARCH_X86_64,
        socket: &[41, X32_SYSCALL_BIT | 41],
        denied: &[
            IO_URING[0],
            IO_URING[1],
            IO_URING[2],
            X32_SYSCALL_BIT | IO_URING[0],
            X32_SYSCALL_BIT | IO_URING[1],
            X32_SYSCALL_BIT | IO_URING[2],
        ],
    },
    Abi {
        arch: AUDIT_ARCH_I386,
        socket: &[359],
        denied: &[102, IO_URING[0], IO_URING[1], IO_URING[2]],
    },
];

/// 64-bit ARM, and 32-bit ARM programs.
const AARCH64: &[Abi] = &[
    Abi {
        arch: AUDIT_ARCH_AARCH64,
        socket: &[198],
        denied: &IO_URING,
    },
    Abi {
        arch: AUDIT_ARCH_ARM,
        socket: &[281],
        denied: &[102, IO_URING[0], IO_URING[1], IO_URING[2]],
    },
];

/// The ABIs the kernel runs on this build's architecture.
fn abis() -> Option<&'static [Abi]> {
    if cfg!(all(target_arch = "x86_64", target_endian = "little")) {
        Some(X86_64)
    } else if cfg!(all(target_arch = "aarch64", target_endian = "little")) {
        Some(AARCH64)
    } else {
        None
    }
}

/// The filter for this build's architecture, `None` where there is none.
pub fn program() -> Option<Vec<Insn>> {
    abis().map(build)
}

/// One block per ABI — load the architecture, compare it, load the syscall number,
/// compare it with that ABI's socket calls, allow — then the shared argument check:
/// a `socket` call jumps there, a refused call straight to the refusal.
fn build(abis: &[Abi]) -> Vec<Insn> {
    let block_len = |a: &Abi| 4 + a.socket.len() + a.denied.len();
    let blocks: usize = abis.iter().map(block_len).sum();
    // After the blocks: `ret allow` (no ABI matched), then the check of argument 0.
    let check_at = blocks + 1;
    let deny_at = check_at + 2;
    let mut out = Vec::with_capacity(blocks + 5);
    for abi in abis {
        let start = out.len();
        out.push(load(OFFSET_ARCH));
        out.push(Insn {
            code: JMP_JEQ_K,
            jt: 0,
            jf: jump(start + 1, start + block_len(abi)),
            k: abi.arch,
        });
        out.push(load(OFFSET_NR));
        for &nr in abi.socket {
            let at = out.len();
            out.push(Insn {
                code: JMP_JEQ_K,
                jt: jump(at, check_at),
                jf: 0,
                k: nr,
            });
        }
        for &nr in abi.denied {
            let at = out.len();
            out.push(Insn {
                code: JMP_JEQ_K,
                jt: jump(at, deny_at),
                jf: 0,
                k: nr,
            });
        }
        out.push(ret(RET_ALLOW));
    }
    out.push(ret(RET_ALLOW));
    out.push(load(OFFSET_ARG0_LOW));
    out.push(Insn {
        code: JMP_JEQ_K,
        jt: 0,
        jf: 1,
        k: AF_UNIX,
    });
    out.push(ret(RET_ERRNO | EACCES));
    out.push(ret(RET_ALLOW));
    out
}

/// The forward distance a jump at `from` needs to land on `to`.
fn jump(from: usize, to: usize) -> u8 {
    u8::try_from(to - from - 1).expect("the filter is a few dozen instructions long")
}

/// The program as the bytes the kernel reads (`struct sock_filter[]`, native order).
pub fn bytes(program: &[Insn]) -> Vec<u8> {
    let mut out = Vec::with_capacity(program.len() * 8);
    for i in program {
        out.extend_from_slice(&i.code.to_ne_bytes());
        out.push(i.jt);
        out.push(i.jf);
        out.extend_from_slice(&i.k.to_ne_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a classic-BPF program the way the kernel does, for the instructions used.
    fn run(program: &[Insn], nr: u32, arch: u32, arg0: u32) -> u32 {
        let mut acc = 0u32;
        let mut pc = 0usize;
        loop {
            let i = program[pc];
            match i.code {
                LD_W_ABS => {
                    acc = match i.k {
                        OFFSET_NR => nr,
                        OFFSET_ARCH => arch,
                        OFFSET_ARG0_LOW => arg0,
                        other => panic!("unexpected load at {other}"),
                    };
                    pc += 1;
                }
                JMP_JEQ_K => {
                    pc += 1 + usize::from(if acc == i.k { i.jt } else { i.jf });
                }
                RET_K => return i.k,
                other => panic!("unexpected opcode {other:#x}"),
            }
        }
    }

    fn check(abis: &[Abi]) {
        let p = build(abis);
        let denied = RET_ERRNO | EACCES;
        for abi in abis {
            for &nr in abi.socket {
                assert_eq!(run(&p, nr, abi.arch, AF_UNIX), denied);
                assert_eq!(run(&p, nr, abi.arch, 2), RET_ALLOW, "AF_INET stays allowed");
                assert_eq!(
                    run(&p, nr, abi.arch, 10),
                    RET_ALLOW,
                    "AF_INET6 stays allowed"
                );
            }
            for &nr in abi.denied {
                assert_eq!(run(&p, nr, abi.arch, 1), denied, "{nr}");
                assert_eq!(run(&p, nr, abi.arch, 0), denied, "{nr}");
            }
            // Ordinary calls of this ABI pass, whatever their first argument.
            for nr in [0, 1, 2, 3, 59, 60, 257, 424, 428] {
                if !abi.socket.contains(&nr) && !abi.denied.contains(&nr) {
                    assert_eq!(run(&p, nr, abi.arch, AF_UNIX), RET_ALLOW);
                }
            }
        }
        // Another ABI's socket number is not a socket call here.
        assert_eq!(run(&p, 41, 0x1234, AF_UNIX), RET_ALLOW);
    }

    #[test]
    fn unix_sockets_and_io_uring_are_refused_and_everything_else_passes_on_every_abi() {
        check(X86_64);
        check(AARCH64);
        let p = program().expect("this build's architecture has a filter");
        assert_eq!(bytes(&p).len(), p.len() * 8);
    }
}
