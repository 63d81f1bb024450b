// Tests for HotwordAudio.
