"""A way into the table when its owner asks for one: a person's account and keys, and sshd's password rule.

The card's sshd takes keys alone (its own drop-in, 50-companion.conf); Imager's "password authentication"
writes an earlier drop-in that allows passwords, since sshd keeps the first value it reads. Root's password
stays locked: a key from the card's `authorized_keys` file logs in as root, and a user made from Imager's
settings gets a password only if Imager gave its hash.
"""

import os
from pathlib import Path

from companion.appliance.imager import USER_NAME_LIMIT, Login
from companion.errors import BadInput

PASSWORDS_DROP_IN = "etc/ssh/sshd_config.d/40-companion-passwords.conf"  # before the card's 50-companion.conf
SYSTEM_UIDS = 1000  # below this, an account is the system's: never taken over by a card's file


def account(root: Path, name: str) -> tuple[int, Path] | None:
    """The uid and home of `name` in the root's passwd file, or None."""
    try:
        rows = (root / "etc/passwd").read_text().splitlines()
    except FileNotFoundError:
        return None
    for row in rows:
        fields = row.split(":")
        if len(fields) >= 7 and fields[0] == name:
            return int(fields[2]), Path(fields[5])
    return None


def add_keys(path: Path, keys: tuple[str, ...]) -> None:
    """Keys added to an authorized_keys file (each once), the folder 700 and the file 600."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        have = path.read_text().splitlines()
    except FileNotFoundError:
        have = []
    scratch = path.with_name(path.name + ".new")
    fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write("".join(f"{key}\n" for key in [*have, *(k for k in keys if k not in have)]))
    scratch.replace(path)


def make_user(root: Path, login: Login, run) -> str:
    """The person's account made (or, made before, given the new keys and hash); what was done, in a line."""
    found = account(root, login.name)
    if found is not None and found[0] < SYSTEM_UIDS:
        raise BadInput("user-data.users[0].name", f"{login.name} is one of the system's accounts",
                       code="errors.imager.user", params={"limit": USER_NAME_LIMIT})
    prefix = () if root == Path("/") else ("--root", str(root))
    if found is None:
        groups = ("--groups", "sudo") if login.password_hash else ()  # sudo asks the password it was given
        run(("useradd", *prefix, "--create-home", "--user-group", "--shell", "/bin/bash", *groups, login.name),
            check=True, capture_output=True)
    if login.password_hash:
        # On chpasswd's input, never its command line (which any user on the table can read in ps).
        run(("chpasswd", *prefix, "--encrypted"), input=f"{login.name}:{login.password_hash}\n", text=True,
            check=True, capture_output=True)
    if login.sudo:
        sudoers = root / "etc/sudoers.d" / f"companion-{login.name}"
        sudoers.parent.mkdir(parents=True, exist_ok=True)
        sudoers.write_text(f"{login.name} ALL=(ALL) NOPASSWD:ALL\n")
        sudoers.chmod(0o440)
    if login.keys:
        home = (account(root, login.name) or (0, Path("/home") / login.name))[1]
        folder = root / str(home).lstrip("/") / ".ssh"
        add_keys(folder / "authorized_keys", login.keys)
        run(("chown", "-R", f"{login.name}:{login.name}", str(Path("/") / home / ".ssh")) if root == Path("/")
            else ("chown", "-R", f"{login.name}:{login.name}", str(folder)), check=True, capture_output=True)
    return (f"user {login.name}: {len(login.keys)} key(s), "
            f"{'a password from Imager' if login.password_hash else 'no password'}")


def password_rule(root: Path, allowed: bool) -> None:
    """sshd takes passwords only when Imager asked for it (ssh_pwauth); keys alone otherwise."""
    drop_in = root / PASSWORDS_DROP_IN
    if allowed:
        drop_in.parent.mkdir(parents=True, exist_ok=True)
        drop_in.write_text("# Raspberry Pi Imager's settings asked for password logins (ssh_pwauth).\n"
                           "PasswordAuthentication yes\n")
    else:
        drop_in.unlink(missing_ok=True)
