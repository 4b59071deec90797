// query_value
