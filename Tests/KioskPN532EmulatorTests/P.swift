enum P {}
