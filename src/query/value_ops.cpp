// value_ops
