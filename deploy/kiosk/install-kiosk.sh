#!/bin/sh
# Install the kiosk for the desktop user running this script (not root):
#   deploy/kiosk/install-kiosk.sh [URL]      default http://127.0.0.1:8080/ (the dealer display);
#   e.g. http://127.0.0.1:8080/scoreboard for a player board on a second screen.
# Needs the table profile's [display] listen = "127.0.0.1:8080" (loopback: nothing else may read it).
set -eu
if [ "$(id -u)" = 0 ]; then
    echo "run this as the desktop user who is logged in on the table's screen, not root" >&2
    exit 2
fi
url=${1:-http://127.0.0.1:8080/}
here=$(cd "$(dirname "$0")" && pwd)
command -v chromium >/dev/null || { echo "chromium is missing: sudo apt-get install chromium" >&2; exit 2; }
command -v curl >/dev/null || { echo "curl is missing: sudo apt-get install curl" >&2; exit 2; }
mkdir -p "$HOME/.config/systemd/user"
install -m 0644 "$here/tablehost-kiosk.service" "$HOME/.config/systemd/user/tablehost-kiosk.service"
printf 'KIOSK_URL=%s\n' "$url" > "$HOME/.config/tablehost-kiosk.env"
systemctl --user daemon-reload
systemctl --user enable --now tablehost-kiosk.service
echo "kiosk: $url (systemctl --user status tablehost-kiosk; change the page in ~/.config/tablehost-kiosk.env)"
