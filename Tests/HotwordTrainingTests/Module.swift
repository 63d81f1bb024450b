// Tests for HotwordTraining.
