// HotwordAudio: audio in and out: files, resampling, ring buffer, ALSA.
