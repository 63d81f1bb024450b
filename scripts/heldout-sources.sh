# The sources no model of scripts/train-models.sh trains or tunes on (sourced by it and by
# scripts/eval-heldout.sh). A model that learnt its training corpora — their microphones,
# speakers and recording style — rather than the word shows it here, one source at a time:
# a figure pooled with the training corpora would hide it (docs/training.md, "Held-out sources").
# Paths from the project root; S is ../shared/data.
S=${S:-../shared/data}
HELDOUT_SPEECH=(
  "$S/negatives/speech_commands"   # one-second words, 272 people on their own devices
  "$S/speech/asterisk_en"          # telephone prompts, 8 kHz, one voice
  "$S/negatives/pcd_es"            # another language: Spanish words and phrases
)
HELDOUT_NOISE=(                    # heard alone and as the noise under the keywords
  "$S/noise/blanket_*"             # city, coffee shop, rain, train, wind
  "$S/noise/pcd_bg_noise*"         # rooms
)
TRAINING_SPEECH=("$S/negatives/fsdd" "$S/negatives/pcd_en" "$S/speech/speechocean762")
TRAINING_NOISE=("$S/noise/moodist_*" "$S/noise/sc_*")
