// executor
