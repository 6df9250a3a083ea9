func bytes(_ string: String) -> [UInt8] { Array(string.utf8) }
