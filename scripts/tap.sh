# shellcheck shell=sh
# One-test TAP files, for the shell parts of the harness on the host and in
# the guest (POSIX sh: the guest scripts run under /bin/sh).  The C tests
# write theirs with guest/tap.h; nfs-test/server.sh's step() writes a
# numbered TAP line per step of the NFS server.
#
#   tap1 FILE "ok"|"not ok" DESCRIPTION [DIAG...]   one test, DIAG lines as
#                                                    TAP comments
#   taprc FILE RC DESCRIPTION [DIAG...]              ok if RC is 0
#   skip1 FILE DESCRIPTION REASON                    one test, skipped: REASON
#                                                    says why ("declared: ..."
#                                                    when the harness decided)

tap1() {
	_tap_f=$1 _tap_st=$2 _tap_d=$3
	shift 3
	{
		printf 'TAP version 13\n1..1\n%s 1 - %s\n' "$_tap_st" "$_tap_d"
		for _tap_l in "$@"; do printf '# %s\n' "$_tap_l"; done
	} >"$_tap_f"
}

taprc() {
	_tap_f=$1 _tap_rc=$2 _tap_d=$3
	shift 3
	if [ "$_tap_rc" = 0 ]; then
		tap1 "$_tap_f" ok "$_tap_d" "$@"
	else
		tap1 "$_tap_f" "not ok" "$_tap_d" "$@"
	fi
}

skip1() {
	printf 'TAP version 13\n1..1\nok 1 - %s # SKIP %s\n' "$2" "$3" >"$1"
}
