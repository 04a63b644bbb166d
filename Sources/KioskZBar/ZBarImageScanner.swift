// ZBar wrapper
