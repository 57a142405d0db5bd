"""A seccomp filter for the bubblewrap sandbox: the kernel calls a test never needs, refused.

bubblewrap installs a classic-BPF program given with `--seccomp FD` just before it runs the
command. This one is a deny list, in the spirit of Docker's default profile but far shorter:
tracing other processes and reading their memory, kernel keyrings, eBPF and perf events,
userfaultfd, modules and kexec, mounts and new namespaces, swap, reboot, host names, handle-based
opens, raw I/O ports, accounting and quotas. Each fails with EPERM, as it would without the
privilege; everything else is allowed. Calls through another ABI (x32, or 32-bit `int 0x80`) are
refused outright, so the list cannot be sidestepped by a different numbering.

The syscall numbers are those of x86-64; on another architecture there is no filter and the
run's notes say so.
"""

from __future__ import annotations

import errno
import os
import platform
import struct

AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000

# x86-64 numbers (arch/x86/entry/syscalls/syscall_64.tbl).
DENIED_X86_64: dict[str, int] = {
    "ptrace": 101,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    "bpf": 321,
    "perf_event_open": 298,
    "userfaultfd": 323,
    "kexec_load": 246,
    "kexec_file_load": 320,
    "init_module": 175,
    "finit_module": 313,
    "delete_module": 176,
    "mount": 165,
    "umount2": 166,
    "pivot_root": 155,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "mount_setattr": 442,
    "unshare": 272,
    "setns": 308,
    "swapon": 167,
    "swapoff": 168,
    "reboot": 169,
    "sethostname": 170,
    "setdomainname": 171,
    "name_to_handle_at": 303,
    "open_by_handle_at": 304,
    "iopl": 172,
    "ioperm": 173,
    "acct": 163,
    "quotactl": 179,
}

# Classic BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h).
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
# struct seccomp_data: int nr; __u32 arch; ...
_OFFSET_NR = 0
_OFFSET_ARCH = 4


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def deny_list_program(
    denied: dict[str, int] = DENIED_X86_64, arch: int = AUDIT_ARCH_X86_64
) -> bytes:
    """The BPF program, as bwrap reads it: an array of `struct sock_filter`."""
    numbers = sorted(set(denied.values()))
    deny = _RET_ERRNO | errno.EPERM
    program = [
        _insn(_LD_W_ABS, _OFFSET_ARCH),
        _insn(_JEQ_K, arch, jt=1),  # our ABI: go on
        _insn(_RET_K, deny),  # any other ABI: refused
        _insn(_LD_W_ABS, _OFFSET_NR),
        _insn(_JGE_K, X32_SYSCALL_BIT, jt=len(numbers) + 1),  # x32 numbering: to the refusal
    ]
    for index, number in enumerate(numbers):
        # Match: jump over the remaining comparisons and the ALLOW to the refusal.
        program.append(_insn(_JEQ_K, number, jt=len(numbers) - index))
    program += [_insn(_RET_K, _RET_ALLOW), _insn(_RET_K, deny)]
    return b"".join(program)


def supported() -> bool:
    return platform.machine() in ("x86_64", "AMD64", "amd64")


def program_fd() -> int | None:
    """A file descriptor holding the program, positioned at its start (the caller passes it to
    bwrap and closes it); None where there is no filter for this architecture."""
    if not supported():
        return None
    fd = os.memfd_create("runners-seccomp", os.MFD_CLOEXEC)
    os.write(fd, deny_list_program())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
