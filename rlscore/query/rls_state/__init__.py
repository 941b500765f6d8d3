"""The weighted one-vs-all RLS state over a pool that every RLS strategy updates: on the pool
kernel or on low-rank features."""
