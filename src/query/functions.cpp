// functions
