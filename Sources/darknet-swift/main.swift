print("darknet-swift")
