# The sources a model of scripts/train-models.sh --candidate never trains or tunes on (sourced by
# it and by scripts/eval-heldout.sh). A model that learnt its training corpora — their microphones,
# speakers and recording style — rather than the word shows it here, one source at a time:
# a figure pooled with the training corpora would hide it (docs/training.md, "Held-out sources").
#
# Two folds, so that every source is judged once by a model that never heard it:
# HOTWORD_FOLD=a (the default) holds out the sources below; b holds out the others and trains
# on these. Paths from the project root; S is ../shared/data.
S=${S:-../shared/data}
FOLD_A_SPEECH=(
  "$S/negatives/speech_commands"   # one-second words, 272 people on their own devices
  "$S/speech/asterisk_en"          # telephone prompts, 8 kHz, one voice
  "$S/negatives/pcd_es"            # another language: Spanish words and phrases
)
FOLD_A_NOISE=(                     # heard alone and as the noise under the keywords
  "$S/noise/blanket_*"             # city, coffee shop, rain, train, wind
  "$S/noise/pcd_bg_noise*"         # rooms
)
FOLD_B_SPEECH=(
  "$S/negatives/fsdd"              # spoken digits, a few speakers
  "$S/negatives/pcd_en"            # English words and phrases
  "$S/speech/speechocean762"       # read sentences, many speakers, children among them
)
FOLD_B_NOISE=("$S/noise/moodist_*" "$S/noise/sc_*")   # places, nature, machines; white and pink noise
case ${HOTWORD_FOLD:-a} in
  a) HELDOUT_SPEECH=("${FOLD_A_SPEECH[@]}") HELDOUT_NOISE=("${FOLD_A_NOISE[@]}")
     TRAINING_SPEECH=("${FOLD_B_SPEECH[@]}") TRAINING_NOISE=("${FOLD_B_NOISE[@]}") ;;
  b) HELDOUT_SPEECH=("${FOLD_B_SPEECH[@]}") HELDOUT_NOISE=("${FOLD_B_NOISE[@]}")
     TRAINING_SPEECH=("${FOLD_A_SPEECH[@]}") TRAINING_NOISE=("${FOLD_A_NOISE[@]}") ;;
  *) echo "HOTWORD_FOLD=${HOTWORD_FOLD}: expected a or b" >&2; exit 64 ;;
esac
