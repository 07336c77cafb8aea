#!/usr/bin/env bash
# Installs the nbgw package into a fresh Debian 12 root and checks it there as an operator would
# (docs/packaging.md, "Checking the package"): install, use, then, with the root booted under its
# own systemd, remove, install again, upgrade to a newer build, remove and purge.
#
#   tools/test-deb.sh [NBGW_DEB [NEWER_DEB]]
#
# Without arguments it builds both with tools/build-deb.sh (the second as a rebuild, version
# <version>+b1). The root is debootstrapped once from the Debian mirror apt is configured with
# (DEBIAN_MIRROR overrides it) and kept as a tarball in out/deb-test/; every run unpacks a fresh
# copy. Needs root (chroot, mounts). Installs debootstrap when missing.
#
# First as a chroot, as in an image build: no systemd runs, a policy-rc.d forbids starting
# services; apt installs the package and its dependencies from the mirror, the files, modes and
# programs are checked, and the daemon is run by hand as nbgw. Then the root is booted with
# systemd-nspawn (its own PID 1 and a private network) and the package's life continues under
# systemd: running after boot, stopped on remove, not started under policy-rc.d, started on
# install, restarted on upgrade, gone after purge.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
[ "$(id -u)" -eq 0 ] || { echo "test-deb: needs root (chroot)" >&2; exit 2; }

work="$repo/out/deb-test"
mkdir -p "$work"
root="$work/root"
base="$work/bookworm-base.tar"
log() { echo "test-deb: $*"; }
failures=0
exec 3>&1
check() { # check DESCRIPTION COMMAND... : runs COMMAND, prints ok/FAIL on the script's stdout (fd 3), so
    # that a redirection after the call applies to COMMAND's output only.
    local description=$1
    shift
    if "$@"; then echo "  ok    $description" >&3; else
        echo "  FAIL  $description" >&3
        failures=$((failures + 1))
    fi
}
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
as_nbgw() { in_root setpriv --reuid nbgw --regid nbgw --init-groups "$@"; }
# As the unit runs nbgwd: user nbgw, primary group nbgwd, nbgw and dialout supplementary.
as_daemon() { in_root setpriv --reuid nbgw --regid nbgwd --init-groups "$@"; }

# --- the packages -----------------------------------------------------------------------------
deb=${1:-}
newer=${2:-}
if [ -z "$deb" ]; then
    deb=$(tools/build-deb.sh | tail -1)
fi
if [ -z "$newer" ]; then
    newer=$(NBGW_DEB_REBUILD=1 tools/build-deb.sh | tail -1)
fi
deb=$(readlink -f "$deb")
newer=$(readlink -f "$newer")
version=$(dpkg-deb -f "$deb" Version)
newer_version=$(dpkg-deb -f "$newer" Version)
dpkg --compare-versions "$newer_version" gt "$version" || { log "$newer_version is not newer than $version" >&2; exit 2; }
log "packages: $(basename "$deb"), then $(basename "$newer")"

# --- a clean Debian 12 root -------------------------------------------------------------------
if ! command -v debootstrap >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap
fi
mirror=${DEBIAN_MIRROR:-$(apt-get indextargets --format '$(REPO_URI)' 'Created-By: Packages' 'Codename: bookworm' |
    grep -v -- '-security' | head -1)}
mirror=${mirror:-http://deb.debian.org/debian/}
unmount() {
    for mount in dev/pts dev proc sys; do
        mountpoint -q "$root/$mount" 2>/dev/null && umount -l "$root/$mount"
    done
    return 0
}
trap unmount EXIT
if [ ! -f "$base" ]; then
    log "debootstrap bookworm from $mirror (once; kept in $base)"
    rm -rf "$work/base-root"
    # minbase plus what a gateway image has: systemd as init, udev, man-db for the man pages.
    debootstrap --variant=minbase --include=systemd,systemd-sysv,udev,man-db bookworm "$work/base-root" "$mirror" \
        >"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
    tar -C "$work/base-root" -cf "$base.partial" . && mv "$base.partial" "$base"
    rm -rf "$work/base-root"
fi
unmount
rm -rf "$root"
mkdir -p "$root"
tar -C "$root" -xf "$base"
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev"
mount -t sysfs -o ro sysfs "$root/sys"
cp /etc/resolv.conf "$root/etc/resolv.conf"
printf '#!/bin/sh\n# Image build: start no service (invoke-rc.d / deb-systemd-invoke honour this).\nexit 101\n' \
    >"$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"
# Not in /tmp: the booted system mounts a fresh tmpfs there.
mkdir -p "$root/var/cache/nbgw-test"
cp "$deb" "$newer" "$root/var/cache/nbgw-test/"
deb_in_root="/var/cache/nbgw-test/$(basename "$deb")"
newer_in_root="/var/cache/nbgw-test/$(basename "$newer")"
# Every file in the root before the package, to compare with what purge leaves.
list_files() { (cd "$root" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./tmp \
    -o -path ./var/cache -o -path ./var/log -o -path ./var/lib/apt -o -path ./var/lib/dpkg \) -prune -o -print |
    sort); }
list_files >"$work/files-before"

# --- install ----------------------------------------------------------------------------------
log "install: apt-get install $deb_in_root"
in_root apt-get update -qq
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$deb_in_root" \
    >"$work/install.log" 2>&1 || { tail -30 "$work/install.log"; exit 1; }
tail -5 "$work/install.log" | sed 's/^/    /'

stat_of() { in_root stat -c '%U:%G %a' "$1"; }
expect_stat() { [ "$(stat_of "$1")" = "$2" ] || { echo "    $1 is $(stat_of "$1"), expected $2"; return 1; }; }
log "checks after install"
check "nbgw --version prints $version" test "$(in_root nbgw --version)" = "${version%%+*}"
check "nbgwd --version prints the same" test "$(in_root nbgwd --version)" = "${version%%+*}"
check "nbgwd --config /etc/nbgw/nbgwd.toml --check-config (as root)" \
    in_root nbgwd --config /etc/nbgw/nbgwd.toml --check-config >"$work/check-config.txt"
check "nbgwd --check-config as the nbgw user (the config is readable by the service)" \
    as_nbgw nbgwd --config /etc/nbgw/nbgwd.toml --check-config >/dev/null
check "man -w nbgw" in_root man -w nbgw
check "man -w 8 nbgwd" in_root man -w 8 nbgwd
check "man -w 5 nbgwd.toml" in_root man -w 5 nbgwd.toml
for page in "1 nbgw" "8 nbgwd" "5 nbgwd.toml"; do
    # man --warnings runs groff with its warnings on; any line on stderr is a mistake in the page.
    check "man $page renders without groff warnings" \
        test -z "$(in_root env MANWIDTH=80 man --warnings $page 2>&1 >/dev/null)"
done
for file in /usr/share/bash-completion/completions/nbgw /usr/share/bash-completion/completions/nbgwd \
    /usr/share/zsh/vendor-completions/_nbgw /usr/share/zsh/vendor-completions/_nbgwd \
    /usr/share/fish/vendor_completions.d/nbgw.fish /usr/share/fish/vendor_completions.d/nbgwd.fish; do
    check "completion $file" test -s "$root$file"
done
# As bash-completion runs it (extglob on): after `nbgw store ` it offers the three subcommands.
check "the bash completion offers 'backup check rekey' after 'nbgw store '" \
    test "$(in_root bash -c 'shopt -s extglob; source /usr/share/bash-completion/completions/nbgw;
        COMP_WORDS=(nbgw store ""); COMP_CWORD=2; COMP_LINE="nbgw store "; COMP_POINT=11; _nbgw 2>/dev/null;
        printf "%s\n" "${COMPREPLY[@]}" | grep -v "^-" | tr "\n" " "')" = "backup check rekey "
check "unit /usr/lib/systemd/system/nbgwd.service" test -f "$root/usr/lib/systemd/system/nbgwd.service"
check "systemd-analyze verify on the installed unit" \
    in_root systemd-analyze verify /usr/lib/systemd/system/nbgwd.service
check "unit enabled (multi-user.target.wants)" test -L "$root/etc/systemd/system/multi-user.target.wants/nbgwd.service"
check "udev rules /usr/lib/udev/rules.d/90-nbgw.rules" test -f "$root/usr/lib/udev/rules.d/90-nbgw.rules"
check "scanner udev rules /usr/lib/udev/rules.d/88-nbgw-scanners.rules" test -f "$root/usr/lib/udev/rules.d/88-nbgw-scanners.rules"
check "sysusers /usr/lib/sysusers.d/nbgw.conf" test -f "$root/usr/lib/sysusers.d/nbgw.conf"
check "tmpfiles /usr/lib/tmpfiles.d/nbgw.conf" test -f "$root/usr/lib/tmpfiles.d/nbgw.conf"
check "the unit's Documentation= targets are installed" bash -c '
    root=$1; status=0
    for target in $(sed -n "s/^Documentation=//p" "$root/usr/lib/systemd/system/nbgwd.service"); do
        case $target in
            man:*) page=${target#man:}; name=${page%(*}; section=${page#*(}; section=${section%)}
                   chroot "$root" man -w "$section" "$name" >/dev/null 2>&1 || { echo "    missing $target"; status=1; } ;;
            file:*) path=${target#file:}; path=${path#//}; [ -f "$root$path" ] || { echo "    missing $target"; status=1; } ;;
            *) echo "    not installed locally: $target"; status=1 ;;
        esac
    done; exit $status' _ "$root"
check "system user nbgw (system uid, nologin, home /var/lib/nbgw)" bash -c '
    IFS=: read -r name _ uid gid _ home shell < <(chroot "$1" getent passwd nbgw) &&
    [ "$uid" -lt 1000 ] && [ "$home" = /var/lib/nbgw ] && [ "${shell##*/}" = nologin ]' _ "$root"
check "nbgw is in groups nbgw and dialout" bash -c '[[ " $(chroot "$1" id -nG nbgw) " == *" dialout "* ]] &&
    [[ " $(chroot "$1" id -nG nbgw) " == *" nbgw "* ]]' _ "$root"
check "group nbgwd (the daemon's own) exists" \
    bash -c 'chroot "$1" getent group nbgwd >/dev/null' _ "$root"
check "/etc/nbgw/credentials root:root 700" expect_stat /etc/nbgw/credentials "root:root 700"
check "/etc/nbgw/credentials/secrets.key root:root 600, 32 bytes" bash -c '
    [ "$(chroot "$1" stat -c "%U:%G %a %s" /etc/nbgw/credentials/secrets.key)" = "root:root 600 32" ]' _ "$root"
check "an operator cannot read the secrets key" \
    bash -c '! chroot "$1" setpriv --reuid nbgw --regid nbgw --init-groups cat /etc/nbgw/credentials/secrets.key \
        >/dev/null 2>&1' _ "$root"
check "/run/nbgw nbgw:nbgw 750 (tmpfiles.d)" expect_stat /run/nbgw "nbgw:nbgw 750"
check "systemd-analyze security rates the installed unit 1.9 or better" \
    in_root systemd-analyze security --offline=yes --threshold=19 /usr/lib/systemd/system/nbgwd.service
check "/etc/nbgw root:nbgw 750" expect_stat /etc/nbgw "root:nbgw 750"
check "/etc/nbgw/nbgwd.toml root:nbgw 640" expect_stat /etc/nbgw/nbgwd.toml "root:nbgw 640"
check "/etc/nbgw/nbgwd.env root:root 600" expect_stat /etc/nbgw/nbgwd.env "root:root 600"
check "/var/lib/nbgw nbgw:nbgw 2770" expect_stat /var/lib/nbgw "nbgw:nbgw 2770"
check "/etc/nbgw/nbgwd.toml is a conffile" bash -c \
    'chroot "$1" dpkg-query -W -f="\${Conffiles}" nbgw | grep -q "^ /etc/nbgw/nbgwd.toml "' _ "$root"
check "docs in /usr/share/doc/nbgw (README.md, docs/, examples/nbgwd.toml, copyright)" bash -c '
    for file in README.md docs/README.md docs/operations.md docs/packaging.md examples/nbgwd.toml \
        udev-rules/README.md copyright changelog.gz; do
        [ -f "$1/usr/share/doc/nbgw/$file" ] || { echo "    missing $file"; exit 1; }; done' _ "$root"

# The daemon as the service runs it: user nbgw, the installed config, its store. No modems here:
# udev off (a chroot shares the host's /sys, and the host's own serial ports are not ours to
# probe), one static port that does not exist (the daemon refuses to run with no port at all; this
# one is reported absent), no metrics listener (the host's port may be taken).
log "run: nbgwd as nbgw (group nbgwd, as the unit runs it) for 3 s, then the operator's commands"
in_root setpriv --reuid nbgw --regid nbgwd --init-groups env NBGW_DB=/var/lib/nbgw/nbgw.sqlite \
    timeout -s TERM 3 nbgwd --config /etc/nbgw/nbgwd.toml --no-udev --port /dev/ttyUSB-absent --no-metrics \
    >"$work/nbgwd.log" 2>&1 || true
check "nbgwd started, was ready (log: nbgwd ready)" grep -q "nbgwd ready" "$work/nbgwd.log"
check "and stopped cleanly on SIGTERM (log: nbgwd stopped)" grep -q "nbgwd stopped$" "$work/nbgwd.log"
check "the store was created nbgw:nbgw 660" expect_stat /var/lib/nbgw/nbgw.sqlite "nbgw:nbgw 660"
db=(env NBGW_DB=/var/lib/nbgw/nbgw.sqlite)
check "nbgw accounts add alice (as nbgw)" as_nbgw "${db[@]}" nbgw accounts add alice >/dev/null
check "nbgw modems (as nbgw)" as_nbgw "${db[@]}" nbgw modems >/dev/null
check "nbgw store backup /var/lib/nbgw/backup.sqlite" \
    as_nbgw "${db[@]}" nbgw store backup /var/lib/nbgw/backup.sqlite >"$work/backup.txt"
check "nbgw store check --db /var/lib/nbgw/backup.sqlite" \
    as_nbgw nbgw store check --db /var/lib/nbgw/backup.sqlite >/dev/null
check "nbgw accounts list --db the backup shows alice" \
    bash -c 'chroot "$1" setpriv --reuid nbgw --regid nbgw --init-groups nbgw accounts list \
        --db /var/lib/nbgw/backup.sqlite | grep -q alice' _ "$root"

# --- boot the root: the same package under a running systemd ------------------------------------
# systemd-nspawn boots the root as a container (its own PID 1, journald, no udevd; a private
# network, so the daemon's 127.0.0.1:9464 is its own). The package installed above is enabled, so
# nbgwd must be running after boot. Then remove, install, upgrade, remove and purge with dpkg in
# there: the maintainer scripts' stop, start, restart and policy-rc.d handling, for real.
unmount
command -v systemd-nspawn >/dev/null ||
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends systemd-container
# The operator's change: more logging, and, as on a board without udev, udev discovery off and one
# static port (absent here: the container has no modem, and the host's ports are not ours).
sed -i 's/^level = "info"/level = "debug"/; s/^udev = true/udev = false/' "$root/etc/nbgw/nbgwd.toml"
printf '\n# changed by the operator\n[[ports]]\npath = "/dev/ttyUSB-absent"\n' >>"$root/etc/nbgw/nbgwd.toml"
config_sum=$(sha256sum <"$root/etc/nbgw/nbgwd.toml")
echo nbgw-test >"$root/etc/hostname"
log "boot: systemd-nspawn --boot (log: $work/boot.log)"
systemd-nspawn -D "$root" --boot --register=no --keep-unit --private-network --console=pipe \
    >"$work/boot.log" 2>&1 </dev/null &
nspawn_pid=$!
leader=""
for _ in $(seq 150); do
    # The container's PID 1: systemd, a child of systemd-nspawn.
    leader=$(pgrep -P "$nspawn_pid" -x systemd || true)
    [ -n "$leader" ] && break
    sleep 0.2
done
[ -n "$leader" ] || { log "the container did not start: $(tail -5 "$work/boot.log")" >&2; exit 1; }
poweroff() {
    if kill -0 "$nspawn_pid" 2>/dev/null; then
        nsenter -t "$leader" -a systemctl poweroff >/dev/null 2>&1 || true
        for _ in $(seq 60); do kill -0 "$nspawn_pid" 2>/dev/null || break; sleep 0.5; done
        kill -TERM "$nspawn_pid" 2>/dev/null || true
        wait "$nspawn_pid" 2>/dev/null || true
    fi
}
trap 'poweroff; unmount' EXIT
in_box() { nsenter -t "$leader" -a /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
box_nbgw() { in_box setpriv --reuid nbgw --regid nbgw --init-groups env NBGW_DB=/var/lib/nbgw/nbgw.sqlite "$@"; }
state=$(in_box timeout 60 systemctl is-system-running --wait 2>/dev/null || true)
log "booted: $state"
active() { in_box systemctl is-active --quiet nbgwd; }
wait_active() { for _ in $(seq 50); do active && return 0; sleep 0.2; done; return 1; }
main_pid() { in_box systemctl show -p MainPID --value nbgwd; }
check "nbgwd is running after boot (enabled by the install)" wait_active
status_text=$(in_box systemctl show -p StatusText --value nbgwd)
echo "    StatusText=$status_text"
check "it told systemd it is ready (Type=notify, STATUS=)" test -n "$status_text"
check "it runs as nbgw" test "$(in_box stat -c %U "/proc/$(main_pid)")" = nbgw
check "in group nbgwd, with nbgw and dialout supplementary" bash -c '
    gid=$(nsenter -t "$1" -a getent group nbgwd | cut -d: -f3)
    status=$(nsenter -t "$1" -a cat "/proc/$2/status")
    grep -q "^Gid:[[:space:]]*$gid[[:space:]]" <<<"$status" &&
    for name in nbgw dialout; do
        id=$(nsenter -t "$1" -a getent group "$name" | cut -d: -f3)
        grep -q "^Groups:.*\b$id\b" <<<"$status" || exit 1
    done' _ "$leader" "$(main_pid)"
check "systemd left /var/lib/nbgw nbgw:nbgw 2770 and the store nbgw:nbgw 660" bash -c '
    [ "$(chroot "$1" stat -c "%U:%G %a" /var/lib/nbgw)" = "nbgw:nbgw 2770" ] &&
    [ "$(chroot "$1" stat -c "%U:%G %a" /var/lib/nbgw/nbgw.sqlite)" = "nbgw:nbgw 660" ]' _ "$root"
check "the control socket is in group nbgw" test "$(in_box stat -c %G /run/nbgw/control.sock)" = nbgw
check "systemd handed the daemon its secrets key (LoadCredential=)" \
    in_box test -s /run/credentials/nbgwd.service/secrets.key
check "its log says it loaded /etc/nbgw/nbgwd.toml" \
    bash -c 'nsenter -t "$1" -a journalctl -u nbgwd --no-pager | grep -q "configuration loaded"' _ "$leader"
check "the config it reads is the operator's (log level debug)" \
    bash -c 'nsenter -t "$1" -a nbgwd --config /etc/nbgw/nbgwd.toml --check-config | grep -qx "level = \"debug\""' \
    _ "$leader"
check "nbgw modems reads the live store (as nbgw)" box_nbgw nbgw modems >/dev/null
check "nbgw store backup while the daemon runs" box_nbgw nbgw store backup /var/lib/nbgw/live-backup.sqlite >/dev/null
check "the backup checks clean" box_nbgw nbgw store check --db /var/lib/nbgw/live-backup.sqlite >/dev/null
store_sum=$(box_nbgw nbgw accounts list --json)

log "remove: dpkg -r nbgw (the image build's policy-rc.d taken away first: it forbids stopping too)"
rm -f "$root/usr/sbin/policy-rc.d"
in_box dpkg -r nbgw >"$work/remove.log" 2>&1 || { tail -30 "$work/remove.log"; exit 1; }
check "the service was stopped" bash -c '! nsenter -t "$1" -a systemctl is-active --quiet nbgwd' _ "$leader"
check "programs gone" test ! -e "$root/usr/bin/nbgw" -a ! -e "$root/usr/sbin/nbgwd"
check "unit and rules gone" test ! -e "$root/usr/lib/systemd/system/nbgwd.service" \
    -a ! -e "$root/usr/lib/udev/rules.d/90-nbgw.rules"
check "the store is kept" test -s "$root/var/lib/nbgw/nbgw.sqlite"
check "the backups are kept" test -s "$root/var/lib/nbgw/backup.sqlite" -a -s "$root/var/lib/nbgw/live-backup.sqlite"
check "the config is kept" test "$(sha256sum <"$root/etc/nbgw/nbgwd.toml")" = "$config_sum"
check "dpkg state rc (config-files)" test "$(in_box dpkg-query -W -f='${db:Status-Abbrev}' nbgw)" = "rc "

log "install with a policy-rc.d that forbids starting services: dpkg -i $deb_in_root"
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"
in_box dpkg -i "$deb_in_root" >"$work/install-policy.log" 2>&1 || { tail -30 "$work/install-policy.log"; exit 1; }
check "policy-rc.d honoured: installed and enabled, not started" bash -c '
    ! nsenter -t "$1" -a systemctl is-active --quiet nbgwd &&
    nsenter -t "$1" -a systemctl is-enabled --quiet nbgwd' _ "$leader"
in_box dpkg -r nbgw >/dev/null 2>&1
rm -f "$root/usr/sbin/policy-rc.d"

log "install on a running system: dpkg -i $deb_in_root"
in_box dpkg -i "$deb_in_root" >"$work/install-running.log" 2>&1 || { tail -30 "$work/install-running.log"; exit 1; }
check "started on install" wait_active
check "the config is still the operator's" test "$(sha256sum <"$root/etc/nbgw/nbgwd.toml")" = "$config_sum"
check "config root:nbgw 640" expect_stat /etc/nbgw/nbgwd.toml "root:nbgw 640"
before_upgrade=$(main_pid)

log "upgrade: dpkg -i $newer_in_root"
in_box dpkg -i "$newer_in_root" >"$work/upgrade.log" 2>&1 || { tail -30 "$work/upgrade.log"; exit 1; }
check "installed version is now $newer_version" \
    test "$(in_box dpkg-query -W -f='${Version}' nbgw)" = "$newer_version"
check "restarted after the upgrade (new main PID, active)" \
    bash -c 'sleep 1; [ "$2" != "$3" ] && [ "$3" != 0 ]' _ "$leader" "$before_upgrade" "$(wait_active; main_pid)"
check "the operator's config is kept" test "$(sha256sum <"$root/etc/nbgw/nbgwd.toml")" = "$config_sum"
check "config still root:nbgw 640" expect_stat /etc/nbgw/nbgwd.toml "root:nbgw 640"
check "the store is kept (same accounts)" test "$(box_nbgw nbgw accounts list --json)" = "$store_sum"
check "the store checks clean" box_nbgw nbgw store check >/dev/null
check "unit still enabled" in_box systemctl is-enabled --quiet nbgwd

log "remove and purge: dpkg -r nbgw; dpkg -P nbgw"
in_box dpkg -r nbgw >>"$work/remove.log" 2>&1
check "stopped on remove" bash -c '! nsenter -t "$1" -a systemctl is-active --quiet nbgwd' _ "$leader"
check "the store is kept on remove" test -s "$root/var/lib/nbgw/nbgw.sqlite"
in_box dpkg -P nbgw >"$work/purge.log" 2>&1 || { tail -30 "$work/purge.log"; exit 1; }
check "dpkg knows no nbgw" bash -c '! chroot "$1" dpkg-query -W nbgw >/dev/null 2>&1' _ "$root"
check "systemd knows no nbgwd" bash -c '
    ! nsenter -t "$1" -a systemctl list-unit-files nbgwd.service --no-legend | grep -q nbgwd' _ "$leader"
poweroff
list_files >"$work/files-after"
# What purge left that was not there before the install (the dependencies apt brought and the
# files booting made are not named nbgw).
comm -13 "$work/files-before" "$work/files-after" >"$work/files-new"
check "no file or directory named nbgw* is left" bash -c '! grep -i nbgw "$1"' _ "$work/files-new"
check "no enable link, no deb-systemd-helper state left" bash -c \
    '! find "$1/etc/systemd" "$1/var/lib/systemd" -name "nbgwd*" | grep -q .' _ "$root"
echo "    left by design: user and group nbgw ($(chroot "$root" getent passwd nbgw | cut -d: -f1,3,6)), group nbgwd"

if ((failures)); then
    log "$failures checks failed"
    exit 1
fi
log "all checks passed"
