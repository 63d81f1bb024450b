// Tests for HotwordAssistant.
