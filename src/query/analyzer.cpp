// analyzer
