"""The Label page: the query panel and its actions bound to what was shown, keys, the pool's
picture, teammates' refresh, search, the positives-only start and the stopping panel."""
