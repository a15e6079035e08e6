# Shared by the benchmark scripts (sourced after they set $dir): test media made once with
# the ffmpeg program, and wall-clock timing.

# make NAME FFMPEG-ARGS...: writes $dir/NAME unless it is already there.
make() { [[ -s "$dir/$1" ]] || ffmpeg -hide_banner -nostdin -v error -y "${@:2}" "$dir/$1"; }

now() { date +%s.%N; }

# elapsed START: seconds since START (a `now`).
elapsed() { awk "BEGIN { print $(now) - $1 }"; }
