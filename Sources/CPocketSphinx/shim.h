#include <pocketsphinx.h>
// err.h: routing or silencing pocketsphinx's process-wide log.
#include <sphinxbase/err.h>
