// HotwordTraining: synthesis, augmentation, training, evaluation, tuning.
