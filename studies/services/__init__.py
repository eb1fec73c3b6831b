"""Domain writes (services), one module per subdomain."""
