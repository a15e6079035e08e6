# Shared by the benchmark scripts (sourced after they set $dir): test media made once with
# the ffmpeg program, and wall-clock timing.

# make NAME FFMPEG-ARGS...: writes $dir/NAME unless it is already there.
make() { [[ -s "$dir/$1" ]] || ffmpeg -hide_banner -nostdin -v error -y "${@:2}" "$dir/$1"; }

now() { date +%s.%N; }

# elapsed START: seconds since START (a `now`).
elapsed() { awk "BEGIN { print $(now) - $1 }"; }

# long_timeline NAME GOP: writes $dir/NAME, the 2-hour timeline of 720 cuts over music
# (ops/long-timeline.py), after making its media once.
long_timeline() {
    make a.mp4 -f lavfi -i testsrc2=size=192x108:rate=30:duration=600 -f lavfi -i sine=frequency=330:duration=600 \
        -c:v libx264 -preset ultrafast -g 30 -pix_fmt yuv420p -c:a aac -shortest
    # b is silent, but has a sound track, as the concat demuxer needs the same streams in every file.
    make b.mp4 -f lavfi -i testsrc=size=192x108:rate=30:duration=600 -f lavfi -i anullsrc=r=44100:cl=mono \
        -c:v libx264 -preset ultrafast -g 30 -pix_fmt yuv420p -c:a aac -t 600
    make music.wav -f lavfi -i "aevalsrc=0.2*sin(2*PI*220*t)+0.1*sin(2*PI*277*t):s=48000:d=600"
    python3 ops/long-timeline.py "$dir/$1" "$2"
}
