"""The virtual Pi, from the host: boot it under qemu, talk to its agent, read the table it runs.

`VirtualPi(folder)` boots the kernel and initramfs that tests/vm/build.sh made
(KVM where the host's actually runs a guest, else qemu's own emulation) and
waits for the agent inside to answer. Given a `card`, a file holding the card's
boot partition, the machine has it as its one disk, /dev/vda (the host reads
its raw bytes whenever the machine has it unmounted). Each request is one JSON line to the
agent (tests/vm/guest/usr/local/sbin/companion-vm-agent) and one back.
"""

import contextlib
import json
import os
import socket
import subprocess
import time
from pathlib import Path

BOOT_S = 600  # to the agent's first answer: a cold emulated boot on a loaded 2-core host takes minutes
# The longest the agent may take over a request before it counts as hung: an emulated machine on a host loaded
# many times over runs that much slower (a trace's buffers set up took over 120 s at a load of 22 on 2 cores).
AGENT_WAIT_S = 600
KVM_SIGN_S = 10  # a guest under a working KVM prints its kernel's first line within this
AGENT, DAEMON = 7000, 8000  # the guest's ports: the agent's, and the table's page


class Stall:
    """When the machine stood still while a `VirtualPi.watch` ran: `spans`, (from, to) in ms since the watch
    began, one for each stretch in which one of its processors did not run (set when the watch ends).

    >>> stall = Stall([(0, 30), (20, 50), (400, 420)])
    >>> stall.most_within(100), stall.most_within(1000)
    (50, 70)
    """

    def __init__(self, spans=None):
        self.spans = spans

    def most_within(self, ms: float) -> float:
        """The most time the machine stood still in any stretch `ms` long (a processor or both)."""
        merged = []
        for begin, end in sorted(self.spans):
            if merged and begin <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([begin, end])
        most = 0
        for i, (begin, _) in enumerate(merged):
            still = 0
            for other_begin, other_end in merged[i:]:
                if other_begin >= begin + ms:
                    break
                still += min(other_end, begin + ms) - other_begin
            most = max(most, still)
        return most


class VirtualPi:
    def __init__(self, folder: Path, log_dir: Path, agent_port: int, page_port: int, card: Path | None = None):
        self.folder, self.console, self.card = folder, log_dir / "console.log", card
        self.agent_port, self.page_port = agent_port, page_port
        self.accelerator, self.process = None, None
        started = time.monotonic()
        for accelerator in self._accelerators():
            self._start(accelerator)
            if accelerator == "tcg" or self._kernel_speaks(KVM_SIGN_S):
                self.accelerator = accelerator
                break
            self._stop()
        self._wait_for_agent(started + BOOT_S)
        self.boot_s = time.monotonic() - started

    @staticmethod
    def _accelerators() -> list[str]:
        # A /dev/kvm that opens may still run no guest (nested virtualisation that hangs): it is tried first and
        # dropped when the kernel says nothing within KVM_SIGN_S. COMPANION_VM_ACCEL names one to use alone.
        chosen = os.environ.get("COMPANION_VM_ACCEL")
        if chosen:
            return [chosen]
        try:
            os.close(os.open("/dev/kvm", os.O_RDWR))
            return ["kvm", "tcg"]
        except OSError:
            return ["tcg"]

    def _start(self, accelerator: str) -> None:
        self.console.unlink(missing_ok=True)
        forwards = f"hostfwd=tcp:127.0.0.1:{self.agent_port}-:{AGENT},hostfwd=tcp:127.0.0.1:{self.page_port}-:{DAEMON}"
        disk = ["-drive", f"file={self.card},format=raw,if=virtio"] if self.card else []
        self.process = subprocess.Popen(
            ["qemu-system-x86_64", "-accel", accelerator, "-cpu", "max", "-m", "2048", "-smp", "2",
             "-kernel", str(self.folder / "vmlinuz"), "-initrd", str(self.folder / "initrd.cpio"),
             "-append", "console=ttyS0 panic=-1 systemd.journald.forward_to_console=1",
             "-display", "none", "-serial", f"file:{self.console}", "-no-reboot",
             "-nic", f"user,model=virtio-net-pci,{forwards}", *disk],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)

    def _kernel_speaks(self, within_s: float) -> bool:
        deadline = time.monotonic() + within_s
        while time.monotonic() < deadline and self.process.poll() is None:
            if self.console.exists() and b"Linux version" in self.console.read_bytes()[:4096]:
                return True
            time.sleep(0.2)
        return False

    def _wait_for_agent(self, deadline: float) -> None:
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"qemu ended ({self.process.returncode}): {self.process.stderr.read().decode()[-2000:]}"
                                   f"\n{self.console_tail()}")
            try:
                if self.call("ping", wait=5).get("pong"):
                    return
            except OSError:  # not listening yet (qemu takes the connection and drops it until the guest does)
                time.sleep(1)
        raise TimeoutError(f"the virtual Pi's agent did not answer within {BOOT_S} s\n{self.console_tail()}")

    def console_tail(self, lines: int = 60) -> str:
        if not self.console.exists():
            return "(no console output)"
        return "\n".join(self.console.read_text(errors="replace").splitlines()[-lines:])

    # ---- asking the agent ----------------------------------------------------------------------------

    def call(self, do: str, *, wait: float = AGENT_WAIT_S, **request) -> dict:
        with socket.create_connection(("127.0.0.1", self.agent_port), timeout=wait) as s:
            s.sendall(json.dumps({"do": do, **request}).encode() + b"\n")
            line = s.makefile("rb").readline()
        if not line:
            raise ConnectionResetError("the agent closed the connection")
        reply = json.loads(line)
        if not reply.pop("ok"):
            raise RuntimeError(f"the agent could not {do}: {reply['error']}")
        return reply

    def run(self, *argv: str, timeout: float = 120, tty: bool = False, env: dict | None = None) -> dict:
        """A command in the machine: its exit code ("rc", None when it timed out), "out" and "err"."""
        return self.call("run", wait=timeout + 30, argv=list(argv), tty=tty, env=env, timeout=timeout)

    def sh(self, script: str, timeout: float = 120) -> str:
        done = self.run("sh", "-c", script, timeout=timeout)
        if done["rc"] != 0:
            raise RuntimeError(f"in the virtual Pi, {script!r} exited {done['rc']}:\n{done['out']}{done['err']}")
        return done["out"]

    def write(self, path: str, text: str, mode: int = 0o644) -> None:
        self.call("write", path=path, text=text, mode=mode)

    def move(self, lines: dict[int, bool], chatter_ms: float = 0, seed: int = 0) -> None:
        """Set switches (line: closed), each bouncing for `chatter_ms` first, as a ball switch does."""
        self.call("move", lines={str(line): closed for line, closed in lines.items()}, chatter_ms=chatter_ms, seed=seed)

    def steps(self, sequence: list[tuple[dict[int, bool], float]], first: dict | None = None) -> dict:
        """Set switches step by step, each step's levels (line: closed) held its ms, timed inside the machine.

        The answer's `held_ms` is how long each step but the last was held, as the machine's clock measured it.
        `first`, a request to the table's page (method, path, headers, body), is made by the machine itself just
        before the first step, so no wait of the host's comes between the two; its `status` and `body` are
        in the answer."""
        return self.call("steps", first=first, steps=[
            {"lines": {str(line): closed for line, closed in lines.items()}, "ms": ms} for lines, ms in sequence])

    def press(self, line: int, held_ms: float, chatter_ms: float = 0, seed: int = 0) -> float:
        """Press a button for `held_ms` and let it go, timed inside the machine: how long it was held, measured there."""
        return self.call("press", line=line, held_ms=held_ms, chatter_ms=chatter_ms, seed=seed)["held_ms"]

    @contextlib.contextmanager
    def watch(self, name: str = "turn"):
        """Measure inside the machine when its processors stood still while the block runs (a `Stall`).

        An emulated machine's processors are threads of the host: a host too busy to run them stops the
        machine while its clock runs on, and a switch's bounce then lasts, to the program, as long as the
        stall. What a test may expect of a debounce follows from what is measured here, not from how busy
        the host was."""
        stall = Stall()
        self.call("watch_start", name=name)
        try:
            yield stall
        finally:
            stall.spans = [tuple(span) for span in self.call("watch_stop", name=name)["stalls"]]

    def value(self, line: int) -> int:
        return self.call("value", line=line)["value"]

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            try:
                self.call("poweroff", wait=10)
                self.process.wait(timeout=60)
            except (OSError, RuntimeError, subprocess.TimeoutExpired):
                pass
        self._stop()

    def _stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if self.process is not None:
            self.process.stderr.close()
