// HotwordAssistant: the voice assistant: listen loop, STT, SUSI client, TTS, configuration.
