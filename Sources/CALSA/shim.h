#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>

// alsa-lib prints its diagnostics to stderr through a C-variadic handler, which Swift cannot
// implement. This formats each message and hands the plain text to a non-variadic sink, so
// HotwordAudio can route it to swift-log instead of the user's terminal.
typedef void (*hotword_alsa_message_sink)(const char *message);

static hotword_alsa_message_sink hotword_alsa_sink;

static void hotword_alsa_error_handler(const char *file, int line, const char *function,
                                       int err, const char *fmt, ...) {
    char message[512];
    int used = snprintf(message, sizeof message, "%s:%d (%s) ", file, line, function);
    if (used < 0 || (size_t)used >= sizeof message) used = 0;
    va_list arguments;
    va_start(arguments, fmt);
    vsnprintf(message + used, sizeof message - (size_t)used, fmt, arguments);
    va_end(arguments);
    if (err != 0) {
        size_t length = strlen(message);
        snprintf(message + length, sizeof message - length, ": %s", snd_strerror(err));
    }
    if (hotword_alsa_sink) hotword_alsa_sink(message);
}

static inline void hotword_alsa_route_messages(hotword_alsa_message_sink sink) {
    hotword_alsa_sink = sink;
    snd_lib_error_set_handler(hotword_alsa_error_handler);
}
