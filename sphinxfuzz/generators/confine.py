"""Kernel confinement of the sandbox child: seccomp and, where the kernel has it, Landlock.

Standard library only (ctypes): the sandbox child imports this file by path before any
generator code runs, and a `pip install` needs no system library or compiler. Once
`confine()` returns, the process keeps what term generation needs (memory, reads and writes
on descriptors it already holds, clocks, signals it handles itself, exit) and loses the rest:

- seccomp-bpf kills the process (SIGSYS) on any attempt to open a file, make or remove
  directories and links, use sockets, run a program, start a process or thread, trace or
  signal another process; every other call outside the allow-list fails with EPERM (a
  harmless call the interpreter makes now and then, such as `stat` while formatting a
  traceback, must fail quietly, not kill a good generator);
- Landlock (ABI 1 and up) takes every file-system right, and from ABI 4 TCP bind/connect,
  from ABI 6 abstract Unix sockets and signals to processes outside the sandbox: a second
  line if the filter had a gap.

Both need `no_new_privs`, which also stops a set-uid program from gaining rights. The filter
is written here as BPF for x86_64 and aarch64; other machines refuse clearly (the caller
then needs `--unconfined`).
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import signal
import struct

try:
    from sphinxfuzz.errors import ExternalError
except ImportError:  # loaded by file path in the sandbox child, where sphinxfuzz is not importable
    ExternalError = RuntimeError  # type: ignore[misc,assignment]

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2

SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_ALLOW = 0x7FFF0000

# The signal the kernel kills a filtered process with; the parent reads it as "refused".
VIOLATION_SIGNAL = signal.SIGSYS

# What a generator may do. Names resolve per machine in SYSCALLS; a name the machine lacks
# (aarch64 has no `open`, only `openat`) is simply absent there.
ALLOWED = (
    "read", "write", "readv", "writev", "pread64", "close", "fstat", "lseek",
    "mmap", "munmap", "mremap", "mprotect", "brk", "madvise", "futex",
    "clock_gettime", "clock_getres", "gettimeofday", "time", "nanosleep", "clock_nanosleep",
    "getrandom", "exit", "exit_group", "rt_sigreturn", "rt_sigaction", "rt_sigprocmask",
    "sigaltstack", "getpid", "gettid", "getppid", "getuid", "geteuid", "getgid", "getegid",
    "sched_yield", "getrusage", "getrlimit", "select", "pselect6", "poll", "ppoll",
    "restart_syscall",
)  # fmt: skip

# Attempts that only hostile code makes: the process dies at once and is reported.
KILLED = (
    "open", "openat", "openat2", "creat", "name_to_handle_at", "open_by_handle_at",
    "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
    "execve", "execveat", "fork", "vfork", "clone", "clone3",
    "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat", "renameat2",
    "link", "linkat", "symlink", "symlinkat", "chmod", "fchmod", "fchmodat", "chown",
    "fchown", "lchown", "fchownat", "truncate", "ftruncate", "mknod", "mknodat",
    "ptrace", "kill", "tkill", "tgkill", "process_vm_readv", "process_vm_writev",
    "pidfd_open", "pidfd_send_signal", "pidfd_getfd", "mount", "umount2", "chroot",
    "pivot_root", "setns", "unshare", "memfd_create", "io_uring_setup", "io_uring_enter",
    "io_uring_register", "bpf", "perf_event_open", "userfaultfd", "prctl", "seccomp",
)  # fmt: skip

# (audit architecture, system call numbers) per `platform.machine()`.
_X86_64 = {
    "read": 0, "write": 1, "open": 2, "close": 3, "fstat": 5, "poll": 7, "lseek": 8,
    "mmap": 9, "mprotect": 10, "munmap": 11, "brk": 12, "rt_sigaction": 13,
    "rt_sigprocmask": 14, "rt_sigreturn": 15, "pread64": 17, "readv": 19, "writev": 20,
    "select": 23, "sched_yield": 24, "mremap": 25, "madvise": 28, "nanosleep": 35,
    "getpid": 39, "socket": 41, "connect": 42, "accept": 43, "bind": 49, "listen": 50,
    "socketpair": 53, "clone": 56, "fork": 57, "vfork": 58, "execve": 59, "exit": 60,
    "kill": 62, "truncate": 76, "ftruncate": 77, "rename": 82, "mkdir": 83, "rmdir": 84,
    "creat": 85, "link": 86, "unlink": 87, "symlink": 88, "chmod": 90, "fchmod": 91,
    "chown": 92, "fchown": 93, "lchown": 94, "gettimeofday": 96, "getrlimit": 97,
    "getrusage": 98, "ptrace": 101, "getuid": 102, "getgid": 104, "geteuid": 107,
    "getegid": 108, "getppid": 110, "sigaltstack": 131, "mknod": 133, "pivot_root": 155,
    "prctl": 157, "chroot": 161, "mount": 165, "umount2": 166, "gettid": 186, "tkill": 200,
    "time": 201, "futex": 202, "restart_syscall": 219, "clock_gettime": 228,
    "clock_getres": 229, "clock_nanosleep": 230, "exit_group": 231, "tgkill": 234,
    "openat": 257, "mkdirat": 258, "mknodat": 259, "fchownat": 260, "unlinkat": 263,
    "renameat": 264, "linkat": 265, "symlinkat": 266, "fchmodat": 268, "pselect6": 270,
    "ppoll": 271, "unshare": 272, "accept4": 288, "perf_event_open": 298,
    "name_to_handle_at": 303, "open_by_handle_at": 304, "setns": 308,
    "process_vm_readv": 310, "process_vm_writev": 311, "renameat2": 316, "seccomp": 317,
    "getrandom": 318, "memfd_create": 319, "bpf": 321, "execveat": 322, "userfaultfd": 323,
    "pidfd_send_signal": 424, "io_uring_setup": 425, "io_uring_enter": 426,
    "io_uring_register": 427, "pidfd_open": 434, "clone3": 435, "openat2": 437,
    "pidfd_getfd": 438,
}  # fmt: skip
_AARCH64 = {  # the generic table (asm-generic/unistd.h)
    "mknodat": 33, "mkdirat": 34, "unlinkat": 35, "symlinkat": 36, "linkat": 37,
    "renameat": 38, "umount2": 39, "mount": 40, "pivot_root": 41, "ftruncate": 46,
    "fchmod": 52, "fchmodat": 53, "fchownat": 54, "fchown": 55, "openat": 56, "close": 57,
    "lseek": 62, "read": 63, "write": 64, "readv": 65, "writev": 66, "pread64": 67,
    "pselect6": 72, "ppoll": 73, "fstat": 80, "exit": 93, "exit_group": 94, "unshare": 97,
    "futex": 98, "nanosleep": 101, "clock_gettime": 113, "clock_getres": 114,
    "clock_nanosleep": 115, "ptrace": 117, "sched_yield": 124, "restart_syscall": 128,
    "kill": 129, "tkill": 130, "tgkill": 131, "sigaltstack": 132, "rt_sigaction": 134,
    "rt_sigprocmask": 135, "rt_sigreturn": 139, "getrlimit": 163, "getrusage": 165,
    "prctl": 167, "gettimeofday": 169, "getpid": 172, "getppid": 173, "getuid": 174,
    "geteuid": 175, "getgid": 176, "getegid": 177, "gettid": 178, "socket": 198,
    "socketpair": 199, "bind": 200, "listen": 201, "accept": 202, "connect": 203,
    "brk": 214, "munmap": 215, "mremap": 216, "clone": 220, "execve": 221, "mmap": 222,
    "mprotect": 226, "madvise": 233, "perf_event_open": 241, "accept4": 242,
    "name_to_handle_at": 264, "open_by_handle_at": 265, "setns": 268,
    "process_vm_readv": 270, "process_vm_writev": 271, "renameat2": 276, "seccomp": 277,
    "getrandom": 278, "memfd_create": 279, "bpf": 280, "execveat": 281, "userfaultfd": 282,
    "pidfd_send_signal": 424, "io_uring_setup": 425, "io_uring_enter": 426,
    "io_uring_register": 427, "pidfd_open": 434, "clone3": 435, "openat2": 437,
    "pidfd_getfd": 438,
}  # fmt: skip
SYSCALLS: dict[str, tuple[int, dict[str, int]]] = {
    "x86_64": (0xC000003E, _X86_64),
    "aarch64": (0xC00000B7, _AARCH64),
}
_X32_BIT = 0x40000000  # x32 ABI calls on x86_64: another numbering, never allowed

_LANDLOCK_CREATE_RULESET, _LANDLOCK_RESTRICT_SELF = 444, 446  # same on both machines
_LANDLOCK_CREATE_RULESET_VERSION = 1


class ConfinementError(ExternalError):
    """The kernel confinement could not be set up; the message says what failed. The
    setting to change is always `unconfined` (run without it, only generators one has read)."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        self.setting = "unconfined"


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _fail(what: str) -> ConfinementError:
    code = ctypes.get_errno()
    return ConfinementError(f"{what} failed: {os.strerror(code)} (errno {code})")


def build_filter(machine: str) -> bytes:
    """The BPF program for `machine` as packed `struct sock_filter`s."""
    if machine not in SYSCALLS:
        raise ConfinementError(
            f"no seccomp filter for this machine ({machine}); sphinxfuzz has one for "
            f"{', '.join(SYSCALLS)}"
        )
    arch, numbers = SYSCALLS[machine]
    ld_w_abs, jeq_k, jge_k, ret_k = 0x20, 0x15, 0x35, 0x06
    program: list[tuple[int, int, int, int]] = [
        (ld_w_abs, 0, 0, 4),  # seccomp_data.arch
        (jeq_k, 1, 0, arch),
        (ret_k, 0, 0, SECCOMP_RET_KILL_PROCESS),
        (ld_w_abs, 0, 0, 0),  # seccomp_data.nr
    ]
    if machine == "x86_64":
        program += [(jge_k, 0, 1, _X32_BIT), (ret_k, 0, 0, SECCOMP_RET_KILL_PROCESS)]
    for names, action in ((ALLOWED, SECCOMP_RET_ALLOW), (KILLED, SECCOMP_RET_KILL_PROCESS)):
        for name in names:
            if name in numbers:
                program += [(jeq_k, 0, 1, numbers[name]), (ret_k, 0, 0, action)]
    program.append((ret_k, 0, 0, SECCOMP_RET_ERRNO | errno.EPERM))
    return b"".join(struct.pack("=HBBI", *instruction) for instruction in program)


def _no_new_privs(libc: ctypes.CDLL) -> None:
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise _fail("prctl(PR_SET_NO_NEW_PRIVS)")


def _install_filter(libc: ctypes.CDLL, code: bytes) -> None:
    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

    program = SockFprog(len(code) // 8, code)
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(program), 0, 0) != 0:
        raise _fail("prctl(PR_SET_SECCOMP)")


def landlock_abi(libc: ctypes.CDLL | None = None) -> int:
    """The kernel's Landlock ABI version; 0 when it has none (or it is turned off)."""
    libc = libc or _libc()
    libc.syscall.restype = ctypes.c_long
    version = libc.syscall(_LANDLOCK_CREATE_RULESET, None, 0, _LANDLOCK_CREATE_RULESET_VERSION)
    return max(0, int(version))


def _landlock(libc: ctypes.CDLL, abi: int) -> None:
    """Handle every right this ABI knows and grant none."""
    fs = (1 << 13) - 1  # ABI 1: execute ... make_sym
    fs |= (1 << 13) if abi >= 2 else 0  # refer
    fs |= (1 << 14) if abi >= 3 else 0  # truncate
    fs |= (1 << 15) if abi >= 5 else 0  # ioctl_dev
    net = 0b11 if abi >= 4 else 0  # bind_tcp, connect_tcp
    scoped = 0b11 if abi >= 6 else 0  # abstract unix sockets, signals
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    attr = struct.pack("=QQQ", fs, net, scoped)[:size]
    buffer = ctypes.create_string_buffer(attr, size)
    fd = libc.syscall(_LANDLOCK_CREATE_RULESET, buffer, size, 0)
    if fd < 0:
        raise _fail("landlock_create_ruleset")
    try:
        if libc.syscall(_LANDLOCK_RESTRICT_SELF, fd, 0) != 0:
            raise _fail("landlock_restrict_self")
    finally:
        os.close(fd)


def confine() -> str:
    """Confine this process for good; returns what was applied, e.g. "seccomp, landlock ABI 7".

    Raises `ConfinementError` when seccomp cannot be set up (Landlock is best effort: the
    seccomp filter alone already denies every way to a file, a socket or a process)."""
    machine = platform.machine()
    code = build_filter(machine)
    libc = _libc()
    _no_new_privs(libc)
    applied = []
    abi = landlock_abi(libc)
    if abi:
        try:
            _landlock(libc, abi)
            applied.append(f"landlock ABI {abi}")
        except ConfinementError:
            pass  # e.g. a kernel with Landlock compiled in but not enabled
    _install_filter(libc, code)
    return ", ".join(["seccomp", *applied])
