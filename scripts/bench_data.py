"""tf.data throughput: records/second through a TFRecord input pipeline (CRC checks on).

1. TFRecordDataset -> map(parse_single_example + decode_raw + reshape + cast,
   num_parallel_calls=AUTOTUNE) -> batch(64) -> prefetch, fully iterated;
2. TFRecordDataset -> batch(64) -> map(parse_example + decode_raw + reshape + cast) -> prefetch.
20,000 records of a 28x28 uint8 image + an int64 label. Reference (real tf.data, same
machine class): ~41,000 and ~176,000 records/s.

Each pass builds its pipeline first (TF traces map functions then; so do we) and times the
iteration. Besides records per second of wall time, the records per second of this process's
CPU time are shown: on a machine shared with other work they vary less.

Usage: python scripts/bench_data.py [--records N] [--repeats R]
"""
import argparse
import os
import tempfile
import time

import numpy as np

import tfcompat as tf


def write(path, n):
    rng = np.random.RandomState(0)
    with tf.io.TFRecordWriter(path) as writer:
        for i in range(n):
            image = rng.randint(0, 256, size=(28, 28), dtype=np.uint8)
            example = tf.train.Example(features=tf.train.Features(feature={
                "image": tf.train.Feature(bytes_list=tf.train.BytesList(
                    value=[image.tobytes()])),
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 10])),
            }))
            writer.write(example.SerializeToString())


FEATURES = {"image": tf.io.FixedLenFeature([], tf.string),
            "label": tf.io.FixedLenFeature([], tf.int64)}


def parse_one(record):
    parsed = tf.io.parse_single_example(record, FEATURES)
    image = tf.reshape(tf.io.decode_raw(parsed["image"], tf.uint8), [28, 28, 1])
    return tf.cast(image, tf.float32), parsed["label"]


def parse_batch(records):
    parsed = tf.io.parse_example(records, FEATURES)
    images = tf.reshape(tf.io.decode_raw(parsed["image"], tf.uint8), [-1, 28, 28, 1])
    return tf.cast(images, tf.float32), parsed["label"]


def run(dataset):
    """(records, wall seconds, CPU seconds) of one full pass."""
    start, cpu = time.perf_counter(), time.process_time()
    count = 0
    for images, labels in dataset:
        count += int(labels.shape[0])
    return count, time.perf_counter() - start, time.process_time() - cpu


PIPELINES = {
    "map(parse_single_example) -> batch(64)": lambda path: tf.data.TFRecordDataset(path)
    .map(parse_one, num_parallel_calls=tf.data.AUTOTUNE).batch(64).prefetch(1),
    "batch(64) -> map(parse_example)": lambda path: tf.data.TFRecordDataset(path)
    .batch(64).map(parse_batch, num_parallel_calls=tf.data.AUTOTUNE).prefetch(1),
}


def measure(records, repeats):
    """Best records/second (wall time) of each pipeline over `repeats` full passes."""
    return {name: wall for name, (wall, _) in measure_wall_and_cpu(records, repeats).items()}


def measure_wall_and_cpu(records, repeats):
    """Best (wall, CPU) records/second of each pipeline over `repeats` full passes."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.tfrecord")
        write(path, records)
        rates = {}
        for name, make in PIPELINES.items():
            wall = cpu = 0.0
            for _ in range(repeats):
                count, seconds, cpu_seconds = run(make(path))
                assert count == records, count
                wall = max(wall, count / seconds)
                cpu = max(cpu, count / cpu_seconds)
            rates[name] = wall, cpu
        return rates


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    for name, (wall, cpu) in measure_wall_and_cpu(args.records, args.repeats).items():
        print("%-42s %10.0f records/s %10.0f records/CPU-s" % (name, wall, cpu))


if __name__ == "__main__":
    main()
