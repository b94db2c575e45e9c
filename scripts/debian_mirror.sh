# Sourced by the scripts that debootstrap Debian 12 (container_images.sh,
# systemd_check.sh): debian_mirror prints the mirror to take bookworm from:
# $KBENCH_DEBIAN_MIRROR, else the URI of this machine's first apt source of
# bookworm itself (not -updates or -security), in deb822 stanzas
# (/etc/apt/sources.list.d/*.sources) or one-line entries; empty when none.
# The repository names no mirror host.
debian_mirror() {
  if [ -n "${KBENCH_DEBIAN_MIRROR:-}" ]; then
    echo "$KBENCH_DEBIAN_MIRROR"
    return
  fi
  {
    local sources=(/etc/apt/sources.list.d/*.sources)
    [ -e "${sources[0]}" ] && awk '
      /^[[:space:]]*$/ { uri = "" }
      /^URIs:/ { uri = $2 }
      /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm" && uri != "") { print uri; exit } }
    ' "${sources[@]}"
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
      awk '$1 == "deb" { f = 2; if ($f ~ /^\[/) while (f < NF && $f !~ /\]$/) f++; if ($f ~ /^\[/ || $f ~ /\]$/) f++;
                         if ($(f + 1) == "bookworm") { print $f; exit } }'
  } | head -n1 || true  # head closing the pipe early, or no sources.list, is no error
}
