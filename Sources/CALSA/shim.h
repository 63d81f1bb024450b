#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>

// alsa-lib prints its diagnostics to stderr through a C-variadic handler, which Swift cannot
// implement. This one formats each message and passes the plain text to
// hotword_alsa_message, which HotwordAudio implements in Swift (@_cdecl) to log it.
void hotword_alsa_message(const char *message);

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
    hotword_alsa_message(message);
}

static inline void hotword_alsa_route_messages(void) {
    snd_lib_error_set_handler(hotword_alsa_error_handler);
}
