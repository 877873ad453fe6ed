# The token buckets' refill times are the clock's: masked before comparing
# (samples/xdp_rate_limit.c refills too slowly for a run to see one).
s/^(rate_buckets\{[0-9a-f]+\} = [0-9a-f]{16})[0-9a-f]{16}$/\1T/
