#!/usr/bin/env bash
# Your own wake word, made the way the shipped ones are, in one command (README, "Train your own
# wake word"; docs/training.md has why each step is there):
#
#   scripts/train-word.sh "hey computer" [--people DIR] [--out FILE] [--work DIR]
#                         [--negatives DIR|CORPUS]… [--noise DIR|CORPUS]… [--rirs DIR|CORPUS]…
#
# From the phrase alone, as hey_susi is made: synthesize it in every installed voice (with
# confusable phrases and other sentences), train two PCEN log-mel networks side by side with three
# rounds of hard negatives, and tune the default together with pocketsphinx's check to 0.2 false
# alarms an hour. With --people DIR (recordings of people saying it, named speaker first:
# anna_01.wav), as computer, jarvis and alexa are made: the people and the voices train two
# networks on each of two front ends (log-mel and the speech embedding), paired; the default is
# the strictest that misses at most a fifth of the validation part's people under noise at 0 dB,
# with at most one false alarm an hour from any corpus alone.
#
# Negative speech, noise and rooms: the corpora `hotword data fetch` downloaded (speech_commands,
# librispeech_dev_clean and rirs_noises, 4.1 GB) unless given. Everything is kept in --work
# (default NAME-training) and reused when there; the model is written to --out (default
# NAME.hwks) only when all went well, with its figures on the test part printed last. Training
# takes about half an hour (from text) to an hour and a half (with people) on 2 cores.
# HOTWORD names the hotword binary (default: hotword on the PATH).
set -euo pipefail
usage() { sed -n '5,6p' "$0" | sed 's/^# *//' >&2; exit 64; }
(($#)) || usage
phrase=$1; shift
[ -n "$phrase" ] && [ "${phrase#-}" = "$phrase" ] || usage
name=$(printf '%s' "$phrase" | tr '[:upper:] ' '[:lower:]_' | tr -cd 'a-z0-9_')
[ -n "$name" ] || { echo "train-word.sh: \"$phrase\" gives no file name (letters or digits, please)" >&2; exit 64; }
people="" out="$name.hwks" work="$name-training" negatives=() noise=() rirs=()
while (($#)); do
  [ $# -ge 2 ] || usage
  case $1 in
    --people) people=$2 ;;
    --out) out=$2 ;;
    --work) work=$2 ;;
    --negatives) negatives+=(--negatives "$2") ;;
    --noise) noise+=(--noise "$2") ;;
    --rirs) rirs+=(--rirs "$2") ;;
    *) usage ;;
  esac
  shift 2
done
[ -z "$people" ] || [ -d "$people" ] || { echo "train-word.sh: --people $people is not a folder" >&2; exit 66; }
((${#negatives[@]})) || negatives=(--negatives speech_commands --negatives librispeech_dev_clean)
hotword=${HOTWORD:-hotword}
mkdir -p "$work"
clips=$work/clips
[ -d "$clips/positive" ] || $hotword synthesize "$phrase" --out "$clips" --negatives --seed 1

# What both recipes train on: the word's voices (and people), everything that is not the word.
common=(--keyword "$phrase" --balance-positives --negatives "$clips/confusable" --negatives "$clips/speech"
        "${negatives[@]}" ${noise[@]+"${noise[@]}"} ${rirs[@]+"${rirs[@]}"}
        --seed 1 --channels 64 --ensemble 2 --hard-negative-rounds 3 --average-epochs 1)
# Tuning and the figures hear the same speech and noise (the corpora's validation and test parts).
heard=("${negatives[@]}" ${noise[@]+"${noise[@]}"})
model=$work/$name.hwks
if [ -n "$people" ]; then
  positives=(--positives "$people" --positives "$clips/positive")
  $hotword train "${positives[@]}" "${common[@]}" --features pcen --out "$work/logmel.hwks"
  $hotword train "${positives[@]}" "${common[@]}" --features speech-embedding --epochs-per-pool 9 --out "$work/embedding.hwks"
  $hotword ensemble "$work/logmel.hwks" "$work/embedding.hwks" --out "$model"
  $hotword tune --model "$model" --positives "$people" --positives-part validation "${heard[@]}" --part validation,test \
    --passes 10 --target-fa-per-hour 1 --miss-budget 0.2 --positives-snr 0 --snr 10 --every-source
  judged=$people
else
  # Its validation part is a few dozen synthetic clips: a noisy score, so it waits longer to stop.
  $hotword train --positives "$clips/positive" "${common[@]}" --features pcen --patience 12 --out "$model"
  $hotword tune --model "$model" --positives "$clips/positive" "${heard[@]}" --part validation,test --passes 10 \
    --target-fa-per-hour 0.2 --check-phrase
  judged=$clips/positive
fi
$hotword eval --model "$model" --positives "$judged" "${heard[@]}" --snr 10 --part test --passes 10 | tee "$work/eval.txt"
# Replaced whole or not at all: a half-copied model never sits at --out.
cp "$model" "$out.partial" && mv "$out.partial" "$out"
echo "wrote $out (figures: $work/eval.txt); try it: hotword run --model $out"
