#pragma once
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gst/pbutils/pbutils.h>
#include <gst/video/video.h>
#include <string.h>

// GStreamer's casts, variadic property setters, iterators and GValues are C macros and varargs Swift cannot call:
// these helpers keep them in one place. The logic (states, loops, frame handoff) stays in Swift (Sources/Media).

// decodebin's "autoplug-continue" for a muted video: audio streams are exposed undecoded (and left unlinked), so
// that a muted video costs no audio decoding and a file whose audio codec has no decoder here still plays.
static gboolean cgst_skip_audio(GstElement *bin, GstPad *pad, GstCaps *caps, gpointer data) {
    (void)bin, (void)pad, (void)data;
    if (gst_caps_get_size(caps) == 0) return TRUE;
    const gchar *name = gst_structure_get_name(gst_caps_get_structure(caps, 0));
    return !g_str_has_prefix(name, "audio/");
}

// The name of the bin that plays a video's sound, inside its pipeline, and of its sink.
#define CGST_AUDIO_BRANCH_NAME "audio"
#define CGST_AUDIO_OUTPUT_NAME "audio-output"

// decodebin's "pad-added" for a video with sound: its first decoded audio stream goes to the machine's audio output
// (autoaudiosink picks PulseAudio, PipeWire's Pulse server or ALSA by rank, and a fake sink when none opens, so a box
// without sound still plays the picture). Added only when the file has an audio stream: an audio sink waiting for a
// stream that never comes would hold the whole pipeline's preroll. Runs on a streaming thread, before the preroll
// completes, so the branch prerolls with the rest.
static void cgst_add_audio_branch(GstElement *decoder, GstPad *pad, gpointer data) {
    GstElement *pipeline = GST_ELEMENT(data);
    GstCaps *caps = gst_pad_get_current_caps(pad);
    if (caps == NULL) caps = gst_pad_query_caps(pad, NULL);
    gboolean isAudio = gst_caps_get_size(caps) > 0 &&
                       g_str_has_prefix(gst_structure_get_name(gst_caps_get_structure(caps, 0)), "audio/");
    gst_caps_unref(caps);
    (void)decoder;
    if (!isAudio) return;
    GstElement *existing = gst_bin_get_by_name(GST_BIN(pipeline), CGST_AUDIO_BRANCH_NAME);
    if (existing != NULL) {  // one sound per video: a second audio stream stays unlinked
        gst_object_unref(existing);
        return;
    }
    GError *error = NULL;
    GstElement *branch = gst_parse_bin_from_description(
        "queue ! audioconvert ! audioresample ! autoaudiosink name=" CGST_AUDIO_OUTPUT_NAME, TRUE, &error);
    if (branch == NULL) {
        if (error) g_error_free(error);
        return;  // audioconvert or audioresample missing: the picture plays, `status` says there is no sound
    }
    if (error) g_error_free(error);
    gst_object_set_name(GST_OBJECT(branch), CGST_AUDIO_BRANCH_NAME);
    gst_bin_add(GST_BIN(pipeline), branch);
    GstPad *input = gst_element_get_static_pad(branch, "sink");
    if (gst_pad_link(pad, input) == GST_PAD_LINK_OK) {
        gst_element_sync_state_with_parent(branch);
    } else {
        gst_element_set_state(branch, GST_STATE_NULL);
        gst_bin_remove(GST_BIN(pipeline), branch);
    }
    gst_object_unref(input);
}

// filesrc ! decodebin ! videoconvert ! BGRx ! appsink, with `location` set on the source (never parsed as pipeline
// text, so any path is safe). gst_parse_launch links decodebin's video pad when it appears; with `audio`, its audio pad
// goes to the audio output (cgst_add_audio_branch), without it audio is not decoded. NULL with `error` set when an
// element is missing.
static inline GstElement *cgst_make_video_pipeline(const char *location, gboolean audio, GError **error) {
    GstElement *pipeline = gst_parse_launch(
        "filesrc name=source ! decodebin name=decoder ! videoconvert ! video/x-raw,format=BGRx ! "
        "appsink name=sink",
        error);
    if (pipeline == NULL) return NULL;
    gst_object_ref_sink(pipeline);  // returned floating: the caller owns a plain reference
    if (*error != NULL) {           // a recoverable parse error still returns a pipeline: refuse it
        gst_object_unref(pipeline);
        return NULL;
    }
    GstElement *source = gst_bin_get_by_name(GST_BIN(pipeline), "source");
    g_object_set(source, "location", location, NULL);
    gst_object_unref(source);
    GstElement *decoder = gst_bin_get_by_name(GST_BIN(pipeline), "decoder");
    if (audio) {
        // The pipeline outlives its decoder's signal handlers, so it is passed unreferenced.
        g_signal_connect(decoder, "pad-added", G_CALLBACK(cgst_add_audio_branch), pipeline);
    } else {
        g_signal_connect(decoder, "autoplug-continue", G_CALLBACK(cgst_skip_audio), NULL);
    }
    gst_object_unref(decoder);
    return pipeline;
}

// The pipeline's appsink (a new reference), set up to hand each sample to `new_sample` on the streaming thread: in
// sync with the clock, at most two queued, the oldest dropped, no GObject signals.
static inline GstElement *cgst_configure_sink(GstElement *pipeline, GstFlowReturn (*new_sample)(GstAppSink *, gpointer),
                                              gpointer context) {
    GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    GstAppSink *appsink = GST_APP_SINK(sink);
    gst_app_sink_set_emit_signals(appsink, FALSE);
    gst_app_sink_set_max_buffers(appsink, 2);
    gst_app_sink_set_drop(appsink, TRUE);
    gst_base_sink_set_sync(GST_BASE_SINK(sink), TRUE);
    GstAppSinkCallbacks callbacks;
    memset(&callbacks, 0, sizeof callbacks);
    callbacks.new_sample = new_sample;
    gst_app_sink_set_callbacks(appsink, &callbacks, context, NULL);
    return sink;
}

// The size of a raw video sample's frames from its caps; false when it has none.
static inline gboolean cgst_sample_size(GstSample *sample, int *width, int *height) {
    GstCaps *caps = gst_sample_get_caps(sample);
    if (caps == NULL || gst_caps_get_size(caps) == 0) return FALSE;
    GstStructure *structure = gst_caps_get_structure(caps, 0);
    return gst_structure_get_int(structure, "width", width) && gst_structure_get_int(structure, "height", height);
}

// Copies the top-left `width`×`height` of a BGRx sample into `destination` (rows `destination_stride` bytes apart),
// row by row, respecting the frame's own stride. False when the sample cannot be mapped.
static inline gboolean cgst_sample_copy_bgrx(GstSample *sample, guint8 *destination, int destination_stride, int width,
                                             int height) {
    GstVideoInfo info;
    GstCaps *caps = gst_sample_get_caps(sample);
    GstBuffer *buffer = gst_sample_get_buffer(sample);
    if (caps == NULL || buffer == NULL || !gst_video_info_from_caps(&info, caps)) return FALSE;
    GstVideoFrame frame;
    if (!gst_video_frame_map(&frame, &info, buffer, GST_MAP_READ)) return FALSE;
    const guint8 *source = GST_VIDEO_FRAME_PLANE_DATA(&frame, 0);
    int source_stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0);
    int rows = MIN(height, GST_VIDEO_FRAME_HEIGHT(&frame));
    size_t row_bytes = (size_t)MIN(width, GST_VIDEO_FRAME_WIDTH(&frame)) * 4;
    for (int row = 0; row < rows; row++) {
        memcpy(destination + (size_t)row * destination_stride, source + (size_t)row * source_stride, row_bytes);
    }
    gst_video_frame_unmap(&frame);
    return TRUE;
}

// The sample's buffer's presentation time in nanoseconds, or 0 when it has none.
static inline guint64 cgst_sample_presentation_time(GstSample *sample) {
    GstBuffer *buffer = gst_sample_get_buffer(sample);
    if (buffer == NULL || !GST_BUFFER_PTS_IS_VALID(buffer)) return 0;
    return GST_BUFFER_PTS(buffer);
}

// The negotiated frame size on the sink's input; false before negotiation.
static inline gboolean cgst_sink_size(GstElement *sink, int *width, int *height) {
    GstPad *pad = gst_element_get_static_pad(sink, "sink");
    if (pad == NULL) return FALSE;
    GstCaps *caps = gst_pad_get_current_caps(pad);
    gst_object_unref(pad);
    if (caps == NULL) return FALSE;
    gboolean found = FALSE;
    if (gst_caps_get_size(caps) > 0) {
        GstStructure *structure = gst_caps_get_structure(caps, 0);
        found = gst_structure_get_int(structure, "width", width) && gst_structure_get_int(structure, "height", height);
    }
    gst_caps_unref(caps);
    return found;
}

// The factory name of the first element inside `pipeline`, not itself a bin, whose element class names both `first`
// and `second` (a video decoder: "Decoder", "Video"; the audio output autoaudiosink chose: "Sink", "Audio"), as a
// string to g_free, or NULL when there is none (yet).
static inline gchar *cgst_element_of_class(GstElement *pipeline, const char *first, const char *second) {
    GstIterator *iterator = gst_bin_iterate_recurse(GST_BIN(pipeline));
    GValue item = G_VALUE_INIT;
    gchar *name = NULL;
    gboolean done = FALSE;
    while (!done && name == NULL) {
        switch (gst_iterator_next(iterator, &item)) {
        case GST_ITERATOR_OK: {
            GstElement *element = GST_ELEMENT(g_value_get_object(&item));
            GstElementFactory *factory = gst_element_get_factory(element);
            const gchar *klass =
                factory ? gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_KLASS) : NULL;
            if (klass != NULL && strstr(klass, first) != NULL && strstr(klass, second) != NULL &&
                !GST_IS_BIN(element)) {
                name = g_strdup(gst_plugin_feature_get_name(GST_PLUGIN_FEATURE(factory)));
            }
            g_value_reset(&item);
            break;
        }
        case GST_ITERATOR_RESYNC:
            gst_iterator_resync(iterator);
            break;
        default:
            done = TRUE;
            break;
        }
    }
    g_value_unset(&item);
    gst_iterator_free(iterator);
    return name;
}

// Starts the audio output over (to NULL, then to the pipeline's state), for a flushing seek to preroll it again: a
// PulseAudio stream's timeline runs from the sink's preroll, not from when the pipeline plays, so a sink prerolled
// long before its pipeline plays (a video read ahead of its start) plays its sound as much late.
static inline void cgst_restart_audio_output(GstElement *pipeline) {
    GstElement *output = gst_bin_get_by_name(GST_BIN(pipeline), CGST_AUDIO_OUTPUT_NAME);
    if (output == NULL) return;
    gst_element_set_state(output, GST_STATE_NULL);
    gst_element_sync_state_with_parent(output);
    gst_object_unref(output);
}

// Whether the pipeline has a branch playing its sound (cgst_add_audio_branch found an audio stream and linked it).
static inline gboolean cgst_has_audio_branch(GstElement *pipeline) {
    GstElement *branch = gst_bin_get_by_name(GST_BIN(pipeline), CGST_AUDIO_BRANCH_NAME);
    if (branch == NULL) return FALSE;
    gst_object_unref(branch);
    return TRUE;
}

// The application message that wakes the bus thread so that it ends.
#define CGST_WAKEUP_NAME "multiscreen-media-wakeup"

static inline void cgst_post_wakeup(GstElement *pipeline) {
    GstBus *bus = gst_element_get_bus(pipeline);
    gst_bus_post(bus, gst_message_new_application(GST_OBJECT(pipeline), gst_structure_new_empty(CGST_WAKEUP_NAME)));
    gst_object_unref(bus);
}

static inline gboolean cgst_message_is_wakeup(GstMessage *message) {
    const GstStructure *structure = gst_message_get_structure(message);
    return GST_MESSAGE_TYPE(message) == GST_MESSAGE_APPLICATION && structure != NULL &&
           gst_structure_has_name(structure, CGST_WAKEUP_NAME);
}

static inline gboolean cgst_message_is_from(GstMessage *message, GstElement *element) {
    return GST_MESSAGE_SRC(message) == GST_OBJECT(element);
}

static inline GstMessageType cgst_message_type(GstMessage *message) { return GST_MESSAGE_TYPE(message); }

// A segment seek to the start: SEGMENT_DONE (not EOS) is posted at the end, so the next seek can be queued while the
// last frames still play. `flush` for the first one (after preroll) and the EOS fallback; never between loops.
static inline gboolean cgst_seek_to_start(GstElement *pipeline, gboolean flush) {
    GstSeekFlags flags = GST_SEEK_FLAG_SEGMENT | (flush ? GST_SEEK_FLAG_FLUSH : 0);
    return gst_element_seek(pipeline, 1.0, GST_FORMAT_TIME, flags, GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_NONE,
                            GST_CLOCK_TIME_NONE);
}

// A flushing, accurate seek to `position` (nanoseconds), for a video that starts where the wall clock says rather
// than at 0: the decoder starts at the keyframe before `position` and drops the frames before it, so the first frame
// out is the one at `position` however far apart the file's keyframes are (a key-unit seek would start up to a whole
// group of pictures early). `segment` for a looping video, as in cgst_seek_to_start.
static inline gboolean cgst_seek_to(GstElement *pipeline, gint64 position, gboolean segment) {
    GstSeekFlags flags = GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE | (segment ? GST_SEEK_FLAG_SEGMENT : 0);
    return gst_element_seek(pipeline, 1.0, GST_FORMAT_TIME, flags, GST_SEEK_TYPE_SET, position, GST_SEEK_TYPE_NONE,
                            GST_CLOCK_TIME_NONE);
}

// Plays the prerolled pipeline so that running time 0 falls `delay` nanoseconds from now on the system clock (negative:
// that long ago), whenever the state change itself completes: the base time is set by hand, with the start time
// NONE so that the pipeline does not overwrite it, which is how pipelines are made to play in step. Frames already due
// go out at once; a first frame still to come waits in the sink. cgst_own_base_time() after PLAYING hands the base
// time back to the pipeline (a later pause or flushing seek sets it as usual).
static inline void cgst_play_at(GstElement *pipeline, gint64 delay) {
    GstClock *clock = gst_system_clock_obtain();
    gst_pipeline_use_clock(GST_PIPELINE(pipeline), clock);
    GstClockTime now = gst_clock_get_time(clock);
    gst_object_unref(clock);
    GstClockTime base = delay >= 0 ? now + (GstClockTime)delay : (now > (GstClockTime)(-delay) ? now + delay : 0);
    gst_element_set_start_time(pipeline, GST_CLOCK_TIME_NONE);
    gst_element_set_base_time(pipeline, base);
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
}

static inline void cgst_own_base_time(GstElement *pipeline) { gst_element_set_start_time(pipeline, 0); }

// The stream's duration in nanoseconds, or -1 when the pipeline cannot say (not prerolled, a stream without one).
static inline gint64 cgst_duration(GstElement *pipeline) {
    gint64 duration = -1;
    if (!gst_element_query_duration(pipeline, GST_FORMAT_TIME, &duration)) return -1;
    return duration;
}

// What an ERROR message says: the error's message and whether it means "cannot decode this kind of file here" (no
// decoder or demuxer, unknown type) rather than a broken file; `resource` when the file could not be read. The
// strings are to g_free; `source` names the element that posted it.
static inline void cgst_parse_error(GstMessage *message, gchar **text, gchar **source, gboolean *unsupported,
                                    gboolean *resource) {
    GError *error = NULL;
    gst_message_parse_error(message, &error, NULL);
    *text = g_strdup(error && error->message ? error->message : "unknown error");
    *source = GST_MESSAGE_SRC(message) ? gst_object_get_name(GST_MESSAGE_SRC(message)) : NULL;
    *unsupported = error != NULL &&
                   ((error->domain == GST_CORE_ERROR && error->code == GST_CORE_ERROR_MISSING_PLUGIN) ||
                    (error->domain == GST_STREAM_ERROR &&
                     (error->code == GST_STREAM_ERROR_CODEC_NOT_FOUND || error->code == GST_STREAM_ERROR_TYPE_NOT_FOUND ||
                      error->code == GST_STREAM_ERROR_WRONG_TYPE || error->code == GST_STREAM_ERROR_NOT_IMPLEMENTED)));
    *resource = error != NULL && error->domain == GST_RESOURCE_ERROR;
    if (error) g_error_free(error);
}
