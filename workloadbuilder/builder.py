"""BuildOptions and Builder: compile a WorkloadItem tree and stamp its runtime objects."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar, cast

from ._gorender import go_quote
from ._reuse import Compiled, OptionsKey, compiled_for, seen_equal, still_of_value, validate_again
from ._stampjson import (
    check_names,
    stamp_json_factory,
    stamp_spec,
    templates_by_name,
)
from .api.meta_v1 import ObjectMeta
from .api.scheduling_v1alpha3 import CompositePodGroup
from .api.scheduling_v1beta1 import (
    PodGroup,
    TypedLocalObjectReference,
    Workload,
    WorkloadSpec,
)
from .api.sdk import (
    DeferredModel,
    deferred,
    deferred_json,
    deferred_maker,
    json_factory,
    json_view,
)
from .execution import Release, RuntimeObject, RuntimeObjects
from .field import ErrorList, FieldError
from .item import WorkloadItem
from .naming import generate_pod_group_name
from .options import (
    BuildOptions,
    DisruptionModeOption,
    SchedulingPolicyOption,
    api_group,
    controller_ref,
)
from .roots import MIXED_KINDS, as_roots, templates_key, validate_roots
from .templates import BuildError, check_depth, composite_template, leaf_template, template_json
from .validation import TreeCheckCache

__all__ = [
    "BuildError",
    "BuildOptions",
    "Builder",
    "DisruptionModeOption",
    "Release",
    "RuntimeObject",
    "RuntimeObjects",
    "SchedulingPolicyOption",
    "api_group",
    "build_workload",
    "controller_ref",
    "validate",
]


class _NoParent:
    """The absence of a parent argument (``None`` is a value: a root composite group)."""


_NO_PARENT = _NoParent()
# Stamps of one template on one Builder after which their to_dict() is compiled (a sweep).
_COMPILE_AFTER = 8
_Stamped = TypeVar("_Stamped", PodGroup, CompositePodGroup)
_Sweep = Callable[[str], DeferredModel]
_Parent = str | None | _NoParent
# One object of a release plan: its kind, name, spec and to_dict() function.
_Planned = tuple[type[DeferredModel], str, dict[str, Any], Any]


def _group_of(api_version: str) -> str:
    group = api_group(api_version)
    if group is None:
        raise BuildError(
            f"invalid owner apiVersion {go_quote(api_version)}: unexpected GroupVersion string:"
            f" {api_version}"
        )
    return group


class Builder:
    """Compiles one WorkloadItem tree into a Workload and stamps its PodGroups.

    ``release()`` does it all in one call: validate, build the Workload, stamp every runtime
    object of one execution, parents first. The steps one by one: ``validate()``,
    ``build_workload()``, ``new_composite_pod_group()`` / ``new_pod_group()``; after a
    ``validate()`` (without ``old_root``) that found nothing, ``release()`` does not check again.
    """

    def __init__(
        self, root: WorkloadItem | Sequence[WorkloadItem] | None, options: BuildOptions
    ) -> None:
        # several roots: one independent template each (roots.py)
        roots = None if type(root) is WorkloadItem else as_roots(root)
        if not isinstance(options, BuildOptions):
            raise TypeError(f"options must be BuildOptions, not {type(options).__name__}")
        if roots is not None and len(roots) == 1:
            root, roots = roots[0], None
        self._roots = roots
        self._given = root if isinstance(root, WorkloadItem) and roots is None else None
        # What the Builder compiles: the tree found clean before of the same value, if any,
        # whose items keep what was found of them (_reuse.py).
        self._root = seen_equal(self._given) if self._given is not None else None
        self._options = options
        # The tree check and each item's resolution, shared by validate() and the build.
        self._facts = TreeCheckCache(self._root) if self._root is not None else None
        self._all_facts = [TreeCheckCache(r) for r in roots] if roots is not None else None
        self._workload: Workload | None = None
        self._existing: Workload | None = None
        # Whether validate() found nothing with every rule on (the compiled JSON is valid).
        self._validated = False
        # Whether validate() without an old root found nothing (release() does not repeat it),
        # and the value of the options when it was found so before (_reuse.py).
        self._clean = False
        self._key: OptionsKey | None = None
        # The JSON of workload() (serialised once, never changed: build_workload()'s copies
        # and the stamps share its parts), what stamping reads once (each template's spec
        # JSON and to_dict(), the owner's JSON, the namespace): this Builder's own, or what
        # the Builders of a tree validated under options of the same value share.
        self._shared = Compiled()
        self._stamping = False
        # Whether _shared came from an earlier Builder (then to_dict() functions are compiled).
        self._reusing = False
        # Stamps of each template by kind, and the templates stamped often enough to have
        # their to_dict() compiled: the shared spec, the rest of the metadata, the function.
        self._stamp_counts: dict[type[DeferredModel], dict[str, int]] = {
            PodGroup: {},
            CompositePodGroup: {},
        }
        self._sweeps: dict[type[DeferredModel], dict[str, _Sweep]] = {
            PodGroup: {},
            CompositePodGroup: {},
        }

    @property
    def root(self) -> WorkloadItem | tuple[WorkloadItem, ...] | None:
        """The tree this Builder was given (it compiles it, or the equal tree found clean
        before), or its roots when it has several (fixed: the compiled Workload is cached)."""
        return self._roots if self._roots is not None else self._given

    @property
    def roots(self) -> tuple[WorkloadItem, ...]:
        """The root items, one per template of the Workload's own list."""
        if self._roots is not None:
            return self._roots
        return (self._given,) if self._given is not None else ()

    @property
    def options(self) -> BuildOptions:
        """The options this Builder was made with (fixed, as the root)."""
        return self._options

    @classmethod
    def from_existing_workload(
        cls, workload: Workload | Mapping[str, Any], options: BuildOptions
    ) -> Builder:
        """A Builder that stamps runtime objects from a Workload read from the API server."""
        builder = cls(None, options)
        builder._existing = (
            workload if isinstance(workload, Workload) else Workload.from_server(workload)
        )
        return builder

    def validate(self, old_root: WorkloadItem | Sequence[WorkloadItem] | None = None) -> ErrorList:
        """Every problem of the tree, at the controller's field paths. Never raises.

        With several roots, ``old_root`` is the previous roots: each is paired by name."""
        if self._existing is not None:
            detail = "cannot validate a builder constructed from an existing workload"
            return ErrorList([FieldError.internal(None, detail)])
        if self._roots is not None and self._all_facts is not None:
            try:
                olds = as_roots(old_root)
            except TypeError as exc:
                return ErrorList([FieldError.internal(None, str(exc))])
            if olds is None and isinstance(old_root, WorkloadItem):
                olds = (old_root,)
            errors = validate_roots(self._roots, self.options, olds, self._all_facts)
            self._clean = not errors and old_root is None
            return errors
        if isinstance(old_root, Sequence) and not isinstance(old_root, str):
            old_root = next(  # the previous roots: the one of the same name
                (o for o in old_root if getattr(o, "name", None) == getattr(self._root, "name", 0)),
                None,
            )
        options = self.options
        errors, self._key = validate_again(self._root, options, old_root, self._facts)
        self._clean = not errors and old_root is None
        if (
            self._clean
            and options.check_api_server_rules
            and not options.disable_declarative_validation
        ):
            # Every rule held: the compiled JSON is what the API server, and so the models,
            # accept (tests/core/test_core_trusted_build.py).
            self._validated = True
        return errors

    def build_workload(self) -> Workload:
        """The compiled scheduling.k8s.io/v1beta1 Workload (built once, then cached)."""
        if self._existing is not None:
            raise BuildError(
                "build_workload() is not available on a Builder created from an existing"
                " Workload: it stamps runtime objects from the supplied Workload (see workload())"
            )
        self._compiled()
        return self._workload_copy()

    def release(
        self,
        old_root: WorkloadItem | Sequence[WorkloadItem] | None = None,
        *,
        name: Callable[[str, str], str] = generate_pod_group_name,
        validate: bool = True,
    ) -> Release:
        """The Workload and every runtime object of one execution, parents first: validated,
        built and stamped in one call.

        Raises ``BuildError`` with the ``errors`` when ``validate(old_root)`` finds any (without
        ``old_root``, not run again after a ``validate()`` that found nothing; ``validate=False``
        skips it; a Builder of an existing Workload has nothing to validate), and as
        ``build_workload()`` and the stamps raise. Each object is named
        ``name(workload_name, template_name)`` (upstream's scheme by default); a child's
        ``spec.parentCompositePodGroupName`` names its parent.
        """
        if validate and self._existing is None and not (self._clean and old_root is None):
            errors = self.validate(old_root)
            if errors:
                raise BuildError(f"the tree does not validate:\n{errors}", errors)
        self.workload()  # compiled (or refused) first
        objects = self._runtime_objects(name)
        return Release(self._workload_copy(), objects)

    def _workload_copy(self) -> Workload:
        """A Workload of the compiled JSON, to change freely (validated on first use)."""
        document = self._document()
        to_json = self._shared.workload_json() if self._reusing else None
        return deferred(Workload, document, to_json)

    def _runtime_objects(self, name: Callable[[str, str], str]) -> RuntimeObjects:
        """Every object of one execution, each named ``name(workload, template)``."""
        document = self._document()
        workload_name = (document.get("metadata") or {}).get("name") or ""
        if not workload_name:
            raise ValueError(
                "the Workload has no name: set BuildOptions(name=...) (see generate_workload_name)"
            )
        if not callable(name):
            raise TypeError(f"name must be a callable (workload, template) -> str, not {name!r}")

        if name is generate_pod_group_name:
            # A function of the two names alone: each computed once per compiled Workload.
            shared = self._shared
            known = shared.names

            def upstream(template: str) -> str:
                found = known.get(template)
                if found is None:
                    found = known[template] = generate_pod_group_name(workload_name, template)
                return found

            if not self._reusing or self._existing is not None:
                return self._objects(document, upstream)
            if shared.plan is None:
                shared.plan = self._release_plan(document, upstream)
            return self._planned(shared.plan)

        def checked(template: str) -> str:
            result = name(workload_name, template)
            if not isinstance(result, str) or not result:
                raise TypeError(
                    f"name({workload_name!r}, {template!r}) returned {result!r}; it must return"
                    " the object's name (a non-empty str)"
                )
            return result

        return self._objects(document, checked)

    def _objects(self, document: dict[str, Any], checked: Callable[[str], str]) -> RuntimeObjects:
        """The runtime objects of ``document``'s templates, each named ``checked(template)``."""
        objects = RuntimeObjects()
        spec = document["spec"]
        for leaf in spec.get("podGroupTemplates", ()):
            objects.append(self.new_pod_group(checked(leaf["name"]), leaf["name"]))
        for root in spec.get("compositePodGroupTemplates", ()):
            objects.extend(self._composite_tree(root, None, checked))
        return objects

    def _release_plan(self, document: dict[str, Any], name: Callable[[str], str]) -> list[_Planned]:
        """What every release of a kept Workload with upstream's names is made of, parents
        first: each object's kind, name, spec (shared, never changed) and ``to_dict()``, as
        ``_objects()`` makes them."""
        plan: list[_Planned] = []
        shared = self._shared
        spec = document["spec"]
        for leaf in spec.get("podGroupTemplates", ()):  # as new_pod_group() stamps them
            stamped = self._stamped(name(leaf["name"]), leaf["name"], True)
            to_json = shared.stamp_json[True, leaf["name"]]
            plan.append((PodGroup, stamped["metadata"]["name"], stamped["spec"], to_json))
        for root in spec.get("compositePodGroupTemplates", ()):
            self._composite_plan(root, None, name, plan)
        return plan

    def _composite_plan(
        self,
        template: Mapping[str, Any],
        parent: str | None,
        name: Callable[[str], str],
        plan: list[_Planned],
    ) -> None:
        """``_release_plan()`` of a composite template and its subtree (as _composite_tree)."""
        shared = self._shared
        template_name = template["name"]
        own = name(template_name)
        stamped = self._stamped(own, template_name, False, parent, template)
        to_json = shared.release_json(False, template_name, stamped, True)
        plan.append((CompositePodGroup, own, stamped["spec"], to_json))
        for leaf in template.get("podGroupTemplates", ()):
            leaf_name = leaf["name"]
            stamped = self._stamped(name(leaf_name), leaf_name, True, own, leaf)
            to_json = shared.release_json(True, leaf_name, stamped, True)
            plan.append((PodGroup, stamped["metadata"]["name"], stamped["spec"], to_json))
        for child in template.get("compositePodGroupTemplates", ()):
            self._composite_plan(child, own, name, plan)

    def _planned(self, plan: list[_Planned]) -> RuntimeObjects:
        """The objects of ``plan``, each of its own metadata (as ``_stamped()`` writes it)."""
        if not self._stamping:
            self._start_stamping()
        shared = self._shared
        namespace, owner = shared.stamp_namespace, shared.owner_json
        objects = RuntimeObjects()
        append = objects.append
        for kind, name, spec, to_json in plan:
            metadata: dict[str, Any] = {"name": name, "namespace": namespace}
            if owner is not None:
                metadata["ownerReferences"] = [owner]
            append(
                cast(RuntimeObject, deferred(kind, {"metadata": metadata, "spec": spec}, to_json))
            )
        return objects

    def _composite_tree(
        self, template: Mapping[str, Any], parent: str | None, name: Callable[[str], str]
    ) -> Iterator[RuntimeObject]:
        """The objects of a composite template's JSON and its subtree, parents first."""
        template_name = template["name"]
        own = name(template_name)
        # As new_composite_pod_group() / new_pod_group(), with the parent set in the same step.
        # The template in hand is the one of its name when the Builder compiled the Workload
        # (names are unique); an existing Workload's is looked up as new_pod_group() does.
        own_template = template if self._existing is None else None
        stamped = self._stamped(own, template_name, False, parent, own_template)
        yield deferred(
            CompositePodGroup,
            stamped,
            self._shared.release_json(False, template_name, stamped, self._reusing),
        )
        for leaf in template.get("podGroupTemplates", ()):
            leaf_name = leaf["name"]
            leaf_template = leaf if own_template is not None else None
            stamped = self._stamped(name(leaf_name), leaf_name, True, own, leaf_template)
            yield deferred(
                PodGroup,
                stamped,
                self._shared.release_json(True, leaf_name, stamped, self._reusing),
            )
        for child in template.get("compositePodGroupTemplates", ()):
            yield from self._composite_tree(child, own, name)

    def new_pod_group(self, pod_group_name: str, template_name: str) -> PodGroup:
        """A PodGroup of the template ``template_name`` (at any depth of the tree)."""
        sweep = self._sweeps[PodGroup].get(template_name) if type(template_name) is str else None
        if sweep is not None and type(pod_group_name) is str:
            return cast(PodGroup, sweep(pod_group_name))  # as _stamp() makes it, compiled
        return self._stamp(PodGroup, pod_group_name, template_name)

    def new_composite_pod_group(self, name: str, template_name: str) -> CompositePodGroup:
        """A CompositePodGroup of ``template_name``; the caller sets its parent, if any."""
        sweep = (
            self._sweeps[CompositePodGroup].get(template_name)
            if type(template_name) is str
            else None
        )
        if sweep is not None and type(name) is str:
            return cast(CompositePodGroup, sweep(name))  # as _stamp() makes it, compiled
        return self._stamp(CompositePodGroup, name, template_name)

    def _stamp(self, kind: type[_Stamped], name: str, template_name: str) -> _Stamped:
        """A runtime object of ``template_name``; once the template has been stamped
        ``_COMPILE_AFTER`` times by this Builder (a sweep), its ``to_dict()`` is compiled and
        later stamps of it take the short way of ``new_pod_group()``."""
        data = self._stamped(name, template_name, kind is PodGroup)
        counts = self._stamp_counts[kind]
        count = counts[template_name] = counts.get(template_name, 0) + 1
        if count != _COMPILE_AFTER or type(name) is not str:
            return deferred(kind, data, self._shared.stamp_json[kind is PodGroup, template_name])
        # A stamp's JSON is the template's, which never changes, but for its name.
        to_json = json_factory(deferred_json(kind, data), [("metadata", "name")])
        if to_json is not None:
            self._sweeps[kind][template_name] = deferred_maker(kind, data, to_json)
        return deferred(kind, data, to_json)

    def _stamped(
        self,
        name: str,
        template_name: str,
        leaf: bool,
        parent: _Parent = _NO_PARENT,
        template: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The JSON of a runtime object of ``template_name``, from the JSON its template and
        the owner were serialised to on first use; ``parent`` fills
        ``spec.parentCompositePodGroupName`` (``None`` included: set, but empty).

        Keys are in field order and values in ``to_dict()`` form, so that the object can be
        deferred (``api.sdk.deferred``); the parts shared between stamps are never
        changed. ``template``, when given, is the template of that name."""
        check_names(name, template_name)
        if not self._stamping:  # a first stamp: the Workload compiled, the options fixed
            self._start_stamping()
        shared = self._shared
        stamps = shared.leaf_stamps if leaf else shared.composite_stamps
        spec = stamps.get(template_name)
        if spec is None:
            spec = self._stamp_spec(template_name, leaf, template)
            to_json = stamp_json_factory(leaf, spec, shared.owner_copy)
            shared.stamp_json[leaf, template_name] = to_json  # first: it is read after spec
            stamps[template_name] = spec
        if parent is not _NO_PARENT:  # in field order: right after workloadRef
            spec = {
                "workloadRef": spec["workloadRef"],
                "parentCompositePodGroupName": parent,
                **spec,
            }
        metadata: dict[str, Any] = {"name": name, "namespace": shared.stamp_namespace}
        if shared.owner_json is not None:
            metadata["ownerReferences"] = [shared.owner_json]
        return {"metadata": metadata, "spec": spec}

    def _start_stamping(self) -> None:
        """Compile the Workload (or refuse to stamp) and read what every stamp shares."""
        self._resolved_workload()
        self._shared.start_stamping(self.options.owner, self._document())
        self._stamping = True

    def _stamp_spec(
        self, template_name: str, leaf: bool, template: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """The spec every runtime object of ``template_name`` shares (never changed)."""
        document = self._document()
        metadata, spec = document.get("metadata") or {}, document["spec"]
        if template is not None:
            return stamp_spec(metadata.get("name") or "", template, leaf)
        shared = self._shared
        if shared.templates is None:
            shared.templates = templates_by_name(spec)
        templates = shared.templates[0 if leaf else 1]
        what = "podGroupTemplate" if leaf else "compositePodGroupTemplate"
        template = templates.get(template_name)
        if template is None:
            raise BuildError(
                f"{what} {go_quote(template_name)} not found in workload"
                f" {go_quote(metadata.get('name') or '')} (have [{' '.join(templates)}])"
            )
        return stamp_spec(metadata.get("name") or "", template, leaf)

    def _document(self) -> dict[str, Any]:
        """``workload().to_dict()``, made once (shared, never changed)."""
        document = self._shared.view
        if document is None or self._workload is None:
            workload = self.workload()  # compiled first: it may take what a Builder shared
            shared = self._shared
            document = shared.view
            if document is None:
                view = json_view(workload)
                document = shared.view = view if view is not None else workload.to_dict()
        return document

    def workload(self) -> Workload:
        """The Workload runtime objects are stamped from: the existing one, or the built one.

        This is the Builder's own copy, shared by every call: read it, do not change it
        (``build_workload()`` gives a copy to change).
        """
        return self._existing if self._existing is not None else self._compiled()

    def _compiled(self) -> Workload:
        if self._workload is None:
            self._workload = self._build()
        return self._workload

    def _kept(self) -> Compiled | None:
        """What the Builders of this tree share with options of the value ``validate()`` found
        it clean under, while the options still have that value (their owner can change)."""
        key = self._key
        if key is None or self._root is None or not still_of_value(self._options, key):
            return None
        return compiled_for(self._root, key)

    def _resolved_workload(self) -> Workload:
        """The Workload to stamp from (compiled on demand), when the objects have an owner."""
        workload = self.workload()
        if self._options.owner is None:
            raise BuildError(
                "a PodGroup must be owned by its controller for garbage collection:"
                " set BuildOptions(owner=...)"
            )
        return workload

    def _build(self) -> Workload:
        kept = self._kept() if self._validated else None
        if kept is not None and kept.document is not None:
            # Compiled by an earlier Builder after the same verdict: every check below held.
            self._shared, self._reusing = kept, True
            return deferred(Workload, kept.document)
        if self._roots is not None and self._all_facts is not None:
            pairs = list(zip(self._roots, self._all_facts, strict=True))
        elif self._root is not None and self._facts is not None:
            pairs = [(self._root, self._facts)]
        else:
            pairs = []
        if not pairs:
            raise BuildError("workload item cannot be nil")
        for root, facts in pairs:
            tree_error = facts.tree_error()
            if tree_error is not None:
                raise BuildError(str(tree_error))
            check_depth(root)
        if len({root.is_composite for root, _ in pairs}) > 1:
            raise BuildError(MIXED_KINDS)
        compiled = self._compiled_in_one_validation(pairs, kept)
        if compiled is not None:
            return compiled
        return self._compiled_by_templates(pairs)

    def _compiled_by_templates(self, pairs: list[tuple[WorkloadItem, TreeCheckCache]]) -> Workload:
        """The Workload built template by template: slower, but the first problem found is
        the error ``build_workload()`` raises (the one-validation path falls back to it)."""
        if pairs[0][0].is_composite:
            composites = [composite_template(root, facts) for root, facts in pairs]
            spec = WorkloadSpec(composite_pod_group_templates=composites)
        else:
            spec = WorkloadSpec(pod_group_templates=[leaf_template(r, f) for r, f in pairs])
        owner = self._options.owner
        if owner is None:
            raise BuildError("a Workload must be owned by its controller for garbage collection")
        spec.controller_ref = TypedLocalObjectReference(
            api_group=_group_of(owner.api_version), kind=owner.kind, name=owner.name
        )
        return Workload(
            metadata=ObjectMeta(
                name=self._options.name or None,
                namespace=self._options.namespace or None,
                owner_references=[owner.to_dict()],
            ),
            spec=spec,
        )

    def _compiled_in_one_validation(
        self, pairs: list[tuple[WorkloadItem, TreeCheckCache]], kept: Compiled | None
    ) -> Workload | None:
        """The Workload, its JSON compiled straight from the tree and validated once; ``None``
        when any step fails (then the template-by-template build names the error).

        After a ``validate()`` that found nothing with every rule on, the JSON is known to be
        valid: the Workload is deferred (validated on first use), its JSON kept in ``kept``
        (what the Builders of the tree share), if given, for the next Builder."""
        owner = self.options.owner
        if owner is None:
            return None
        try:
            templates = [template_json(root, facts) for root, facts in pairs]
            api_group = _group_of(owner.api_version)
        except BuildError:
            return None
        key = templates_key([root for root, _ in pairs])
        # In to_dict() form and field order, as api.sdk.deferred wants.
        owner_json = owner.to_dict()
        document = {
            "metadata": {
                "name": self.options.name or None,
                "namespace": self.options.namespace or None,
                "ownerReferences": [owner_json],
            },
            "spec": {
                "controllerRef": {"apiGroup": api_group, "kind": owner.kind, "name": owner.name},
                key: templates,
            },
        }
        if self._validated:
            shared = self._shared if kept is None else kept
            shared.owner_json = owner_json
            shared.document = document  # after the owner's JSON: read with it
            self._shared = shared
            return deferred(Workload, document)
        try:
            return Workload.model_validate(document)
        except ValueError:
            return None


def validate(
    root: WorkloadItem | Sequence[WorkloadItem] | None,
    options: BuildOptions,
    *,
    old_root: WorkloadItem | Sequence[WorkloadItem] | None = None,
) -> ErrorList:
    """``Builder(root, options).validate(old_root)``."""
    return Builder(root, options).validate(old_root)


def build_workload(root: WorkloadItem | Sequence[WorkloadItem], options: BuildOptions) -> Workload:
    """``Builder(root, options).build_workload()``."""
    return Builder(root, options).build_workload()
