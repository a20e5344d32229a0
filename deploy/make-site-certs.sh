#!/usr/bin/env bash
# Makes a site CA and certificates for canopyd and each agent host, with openssl, for
# tls_cert/tls_key/tls_ca and tls_agent_cert/tls_agent_key (docs/security.md).
#
#   deploy/make-site-certs.sh --out DIR --controller NAME[,ALT...] [--host NAME[,ALT...]]...
#
# DIR/ca.crt and DIR/ca.key: the site CA, made on the first run and reused after (keep ca.key
# off the cluster). DIR/canopyd.{crt,key}: canopyd's certificate, whose names clients check
# against the address they dial (give every name and IP address they use). DIR/NAME.{crt,key}
# per --host: an agent host's certificate; canopyd lets it register the nodes it names, by
# NodeName or NodeAddr. ALT entries are DNS names or IP addresses (subjectAltNames).
set -euo pipefail

usage() {
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

out="" controller="" days=825
hosts=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="${2:?--out needs a directory}"; shift 2 ;;
    --out=*) out="${1#--out=}"; shift ;;
    --controller) controller="${2:?--controller needs NAME[,ALT...]}"; shift 2 ;;
    --controller=*) controller="${1#--controller=}"; shift ;;
    --host) hosts+=("${2:?--host needs NAME[,ALT...]}"); shift 2 ;;
    --host=*) hosts+=("${1#--host=}"); shift ;;
    --days) days="${2:?--days needs a number}"; shift 2 ;;
    --days=*) days="${1#--days=}"; shift ;;
    -h|--help) usage ;;
    *) echo "make-site-certs.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] || { echo "make-site-certs.sh: --out DIR is required" >&2; exit 2; }
[ -n "$controller" ] || { echo "make-site-certs.sh: --controller NAME is required" >&2; exit 2; }
case "$days" in ''|*[!0-9]*) echo "make-site-certs.sh: --days: expected a number of days, got '$days'" >&2; exit 2 ;; esac
command -v openssl >/dev/null || { echo "make-site-certs.sh: openssl is not installed (apt-get install openssl)" >&2; exit 1; }

mkdir -p "$out"
umask 077

if [ ! -f "$out/ca.key" ]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -sha256 \
    -days "$days" -subj "/CN=Canopy site CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -keyout "$out/ca.key" -out "$out/ca.crt" 2>/dev/null
  echo "made the site CA: $out/ca.crt (keep $out/ca.key off the cluster)"
fi

# make_cert FILE_STEM NAME[,ALT...] EXTENDED_KEY_USAGE
make_cert() {
  local stem="$1" spec="$2" usage="$3"
  local cn="${spec%%,*}" sans="" entry
  IFS=',' read -r -a entries <<<"$spec"
  for entry in "${entries[@]}"; do
    [ -n "$entry" ] || continue
    if [[ "$entry" =~ ^[0-9.]+$ || "$entry" == *:* ]]; then
      sans+="${sans:+,}IP:$entry"
    else
      sans+="${sans:+,}DNS:$entry"
    fi
  done
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -sha256 -subj "/CN=$cn" \
    -keyout "$out/$stem.key" -out "$out/$stem.csr" 2>/dev/null
  openssl x509 -req -in "$out/$stem.csr" -CA "$out/ca.crt" -CAkey "$out/ca.key" \
    -CAcreateserial -days "$days" -sha256 -out "$out/$stem.crt" \
    -extfile <(printf 'subjectAltName=%s\nextendedKeyUsage=%s\nbasicConstraints=CA:FALSE\n' \
      "$sans" "$usage") 2>/dev/null
  rm -f "$out/$stem.csr"
  chmod 0644 "$out/$stem.crt"
  echo "made $out/$stem.crt for $sans"
}

make_cert canopyd "$controller" serverAuth
for h in "${hosts[@]}"; do
  make_cert "${h%%,*}" "$h" clientAuth
done
chmod 0644 "$out/ca.crt"
