# The peer: the same canonical string + HMAC-SHA256 in Python's hmac/hashlib (C-backed).
# Prints one line per body size: "size peer_sign_ns" (median of 7 runs).
import hashlib, hmac, statistics, time

secret = b"benchmark-secret-key-0123456789"
for size in (0, 1024, 262144):
    body = bytes((i * 31) & 0xFF for i in range(size))
    iterations = 200 if size > 100000 else 20000
    times = []
    for _ in range(7):
        start = time.perf_counter_ns()
        for index in range(iterations):
            canonical = "\n".join(("POST", "/vision", str(1700000000 + index), hashlib.sha256(body).hexdigest()))
            hmac.new(secret, canonical.encode(), hashlib.sha256).hexdigest()
        times.append((time.perf_counter_ns() - start) / iterations)
    print(size, int(statistics.median(times)))
