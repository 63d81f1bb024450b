// Tests that run the hotword binary.
