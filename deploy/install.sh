#!/usr/bin/env bash
# Install tablehost on Raspberry Pi OS (Bookworm or later) as a systemd service.
# Usage: sudo deploy/install.sh /path/to/your-table.toml [/path/to/journal.key]
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "install.sh: run as root (sudo)" >&2; exit 2; }
profile=${1:?"usage: install.sh TABLE_PROFILE.toml [KEY_FILE]"}
key=${2:-}
here=$(cd "$(dirname "$0")/.." && pwd)

# System packages: Python, libusb for the shuffler (pyusb), lgpio for gpiozero on a Pi 5.
apt-get update
apt-get install -y python3 python3-venv libusb-1.0-0 python3-lgpio

# A dedicated user with access to serial, USB and GPIO devices.
getent group tablehost >/dev/null || groupadd --system tablehost
id tablehost >/dev/null 2>&1 || useradd --system --gid tablehost --home-dir /var/lib/tablehost \
    --shell /usr/sbin/nologin --groups dialout,gpio,plugdev tablehost
# The web face's user (tablehost-web.service): in the group tablehost, so it may read the profile and
# the face file the service writes for it (0640, never write it); the journal is 0600 tablehost and
# the keys 0400 tablehost, which it cannot read.
getent group tablehost-web >/dev/null || groupadd --system tablehost-web
id tablehost-web >/dev/null 2>&1 || useradd --system --gid tablehost-web --groups tablehost \
    --home-dir /nonexistent --no-create-home --shell /usr/sbin/nologin tablehost-web

# The code, in its own virtualenv (system site packages for python3-lgpio).
install -d /opt/tablehost
cp -r "$here"/pyproject.toml "$here"/README.md "$here"/firmware_host "$here"/drivers "$here"/sim \
      "$here"/hardware-profiles /opt/tablehost/
python3 -m venv --system-site-packages /opt/tablehost/venv
/opt/tablehost/venv/bin/pip install --quiet /opt/tablehost

# Configuration: the table profile (device models beside it) and the journal key.
install -d -m 0750 -o root -g tablehost /etc/tablehost /etc/tablehost/devices /etc/tablehost/tables
install -m 0640 -o root -g tablehost "$here"/hardware-profiles/devices/*.toml /etc/tablehost/devices/
install -m 0640 -o root -g tablehost "$profile" /etc/tablehost/tables/table.toml
ln -sf /etc/tablehost/tables/table.toml /etc/tablehost/table.toml
if [ -n "$key" ]; then
    install -m 0400 -o tablehost -g tablehost "$key" /etc/tablehost/journal.key
elif [ ! -e /etc/tablehost/journal.key ]; then
    /opt/tablehost/venv/bin/tablehost journal keygen /etc/tablehost/journal.key
    chown tablehost:tablehost /etc/tablehost/journal.key
fi

# The web face's own files: its PIN files and its TLS key (`tablehost display pin`, then chown).
install -d -m 0750 -o tablehost-web -g tablehost-web /etc/tablehost/web
# A journal and its segments made before the face file: the service's alone (it holds every card
# before it is exposed); the web face reads journal.sqlite.face, which the service makes 0640 at start.
for f in /var/lib/tablehost/journal*.sqlite /var/lib/tablehost/journal*.sqlite-wal /var/lib/tablehost/journal*.sqlite-shm \
         /var/lib/tablehost/journal.*.sqlite.gz /var/lib/tablehost/journal.*.sqlite.xz /var/lib/tablehost/journal.*.sqlite.bz2; do
    if [ -e "$f" ]; then chown tablehost:tablehost "$f" && chmod 0600 "$f"; fi
done

# udev rules for stable names and non-root access, then the service.
install -m 0644 "$here"/deploy/udev/*.rules /etc/udev/rules.d/
udevadm control --reload-rules && udevadm trigger
install -m 0644 "$here"/deploy/systemd/tablehost.service /etc/systemd/system/tablehost.service
install -m 0644 "$here"/deploy/systemd/tablehost-web.service /etc/systemd/system/tablehost-web.service
# Wait (at most 2 minutes) for NTP's first synchronisation before time-sync.target (the Pi has no RTC).
install -d -m 0755 /etc/systemd/system/systemd-time-wait-sync.service.d
install -m 0644 "$here"/deploy/systemd/systemd-time-wait-sync.service.d/tablehost.conf \
    /etc/systemd/system/systemd-time-wait-sync.service.d/tablehost.conf
systemctl daemon-reload
systemctl enable systemd-time-wait-sync.service
systemctl enable --now tablehost.service tablehost-web.service
systemctl --no-pager status tablehost.service tablehost-web.service || true
