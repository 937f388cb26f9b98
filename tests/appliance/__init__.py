"""The appliance's tests: the card image, the install script's releases, the service as deployed under systemd, backups
and updates (a package, so its conftest keeps a name of its own)."""
