"""pytest plugin of workloadbuilder (fixtures arrive with the test server)."""
