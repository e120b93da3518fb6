"""Identities and RBAC for the test server, as kube-apiserver has them.

``identity`` (users, groups, the requester of the running request), ``attributes`` (a
request's verb, resource, subresource, name and namespace), ``policy`` (rules: matching,
covering, their compact form), ``authorizer`` (the RBAC authorizer over the store),
``messages`` (401 / 403 Status bodies word for word), ``escalation`` (writes of roles and
bindings), ``reviews`` (the access and self-subject reviews), ``bootstrap`` (the default
ClusterRoles and bindings), ``kinds`` (the served types) and ``engine`` (the verbs with all of
the above).
"""
