// Tests for HotwordCore.
