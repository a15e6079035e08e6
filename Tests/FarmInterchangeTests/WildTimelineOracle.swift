/// The `opentimelineio` package's reading of an editor's timeline, as the wild timeline check
/// asks it: the script reads FILE through the adapter for its extension (an EDL at 24 fps, or 25
/// or 30 where its timecodes need that, as a user passes `--adapter-arg rate=…` to
/// `otioconvert`), writes the timeline to OTIO, and prints where the package shows each enabled
/// clip: its part inside every enclosing window (a track's or stack's `source_range`), in
/// timeline seconds, with the media time at its start (from the reference's `available_range`,
/// advanced by a linear time warp's scalar where a window cuts its head). An image sequence's URL
/// is its folder's and its frames' pattern, `BASE|NAME.%04d.EXT`, with its first number. A clip
/// without media (MissingReference, a generator other than a solid colour's) is counted as
/// missing; a solid colour is placed with no URL.
/// An adapter that refuses the file, or a file that holds no timeline, prints why.
enum WildTimelineOracle {
    static let script = #"""
        import contextlib, json, sys
        import opentimelineio as otio

        def speed(clip):
            scalar = 1.0
            for effect in clip.effects:
                if isinstance(effect, otio.schema.FreezeFrame):
                    scalar = 0.0
                elif isinstance(effect, otio.schema.LinearTimeWarp):
                    scalar *= effect.time_scalar
            return scalar

        def placement(clip, top):
            """Where the package shows clip: its part inside every enclosing window, in timeline time."""
            trimmed = clip.trimmed_range()
            start = clip.transformed_time(trimmed.start_time, top)
            low, high = start, start + trimmed.duration
            parent = clip.parent()
            while parent is not top:
                if not parent.enabled:
                    return None
                window = parent.transformed_time_range(parent.trimmed_range(), top)
                low, high = max(low, window.start_time), min(high, window.end_time_exclusive())
                parent = parent.parent()
            if high <= low:
                return None
            reference = clip.media_reference
            available = getattr(reference, "available_range", None)
            media = trimmed.start_time - (available.start_time if available else otio.opentime.RationalTime(0, 1))
            return low, high, media.to_seconds() + (low - start).to_seconds() * speed(clip)

        def read(source):
            tries = [{}]
            if source.lower().endswith(".edl"):
                tries = [{"rate": rate} for rate in (24, 25, 30)]
            for number, arguments in enumerate(tries):
                try:
                    # Some adapters print banners on stdout, which carries the answer.
                    with contextlib.redirect_stdout(sys.stderr):
                        return otio.adapters.read_from_file(source, **arguments), arguments
                except ValueError as error:
                    if "Frame rate mismatch" not in str(error) or number == len(tries) - 1:
                        raise

        source, target = sys.argv[1], sys.argv[2]
        try:
            document, arguments = read(source)
        except Exception as error:
            print(json.dumps({"adapter": f"{type(error).__name__}: {error}".splitlines()[0]}))
            sys.exit(0)
        timeline = document
        if not isinstance(document, otio.schema.Timeline):
            timelines = list(document.find_children(descended_from_type=otio.schema.Timeline))
            if not timelines:
                print(json.dumps({"adapter": "no timeline: a " + type(document).__name__}))
                sys.exit(0)
            timeline = timelines[0]
        otio.adapters.write_to_file(timeline, target)
        top, clips, missing = timeline.tracks, [], 0
        for clip in timeline.find_clips():
            reference = clip.media_reference
            if not clip.enabled:
                continue
            place = placement(clip, top)
            if place is None:
                continue
            first = None
            if isinstance(reference, otio.schema.ExternalReference):
                name = reference.target_url
            elif isinstance(reference, otio.schema.ImageSequenceReference) and reference.frame_step == 1:
                # The frames' folder and their names as image2 numbers them, with the first number.
                pad = reference.frame_zero_padding
                field = "%0{}d".format(pad) if pad > 0 else "%d"
                name = "{}|{}{}{}".format(
                    reference.target_url_base, reference.name_prefix.replace("%", "%%"), field,
                    reference.name_suffix.replace("%", "%%"))
                first = reference.start_frame
            elif isinstance(reference, otio.schema.GeneratorReference) and any(
                    word in reference.generator_kind.lower() for word in ("solid", "fill", "color", "colour")):
                name = None
            else:
                missing += 1
                continue
            low, high, media = place
            clips.append({"url": name, "first": first, "at": low.to_seconds(), "duration": (high - low).to_seconds(),
                          "media": media})
        print(json.dumps({"arguments": arguments, "clips": clips, "missing": missing}))
        """#
}
