// The file that makes a directory a query stream, in a module of its own so `bench list` can find
// streams without loading the stream loader (YAML, ajv).

/** The stream's definition inside its directory. */
export const STREAM_FILE = 'stream.yaml';
