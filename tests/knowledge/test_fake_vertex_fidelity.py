"""The Vertex fake answers Google's own REST client (google-cloud-aiplatform) as the real API
does, and refuses what the real API refuses (third outside attack run: the client got 404
on every call — it sends ``?$alt=json;enum-encoding=int`` —, numeric enums crashed the fake,
and misspelled fields were accepted in silence)."""

from __future__ import annotations

import json

import httpx
import pytest
from google.cloud import aiplatform_v1
from google.cloud.aiplatform_v1.services.index_service.transports.rest import (
    IndexServiceRestTransport,
)
from google.cloud.aiplatform_v1.services.match_service.transports.rest import (
    MatchServiceRestTransport,
)
from google.oauth2 import service_account

from tests.fake_vertex import FakeVertex

DIMENSIONS = 4


@pytest.fixture
def fake(tmp_path):
    with FakeVertex(dimensions=DIMENSIONS) as fake:
        yield fake


def _google_clients(fake, tmp_path):
    credentials = service_account.Credentials.from_service_account_file(
        str(fake.service_account_file(tmp_path)),
        scopes=["https://www.googleapis.com/auth/cloud-platform"],
    )
    host = fake.url.removeprefix("http://")
    index = aiplatform_v1.IndexServiceClient(
        transport=IndexServiceRestTransport(host=host, credentials=credentials, url_scheme="http")
    )
    match = aiplatform_v1.MatchServiceClient(
        transport=MatchServiceRestTransport(host=host, credentials=credentials, url_scheme="http")
    )
    return index, match


def _datapoint(datapoint_id, vector, scope, floor):
    return aiplatform_v1.IndexDatapoint(
        datapoint_id=datapoint_id,
        feature_vector=vector,
        restricts=[aiplatform_v1.IndexDatapoint.Restriction(namespace="scope", allow_list=[scope])],
        numeric_restricts=[
            aiplatform_v1.IndexDatapoint.NumericRestriction(namespace="floor", value_int=floor)
        ],
    )


def test_google_s_own_rest_client_upserts_finds_and_removes(fake, tmp_path):
    index_client, match_client = _google_clients(fake, tmp_path)
    index_name = f"projects/{fake.project}/locations/{fake.location}/indexes/{fake.index}"
    endpoint = (
        f"projects/{fake.project}/locations/{fake.location}/indexEndpoints/{fake.index_endpoint}"
    )
    index_client.upsert_datapoints(
        request=aiplatform_v1.UpsertDatapointsRequest(
            index=index_name,
            datapoints=[
                _datapoint("1", [1, 0, 0, 0], "license:a", 1),
                _datapoint("2", [0.9, 0.1, 0, 0], "license:b", 1),
                _datapoint("3", [0.8, 0.2, 0, 0], "license:a", 5),
            ],
        )
    )
    assert index_client.get_index(name=index_name).index_stats.vectors_count == 3

    query = aiplatform_v1.FindNeighborsRequest.Query(
        datapoint=aiplatform_v1.IndexDatapoint(
            datapoint_id="q",
            feature_vector=[1, 0, 0, 0],
            restricts=[
                aiplatform_v1.IndexDatapoint.Restriction(
                    namespace="scope", allow_list=["license:a"]
                )
            ],
            numeric_restricts=[  # an enum, sent by the client as a number
                aiplatform_v1.IndexDatapoint.NumericRestriction(
                    namespace="floor",
                    value_int=3,
                    op=aiplatform_v1.IndexDatapoint.NumericRestriction.Operator.LESS_EQUAL,
                )
            ],
        ),
        neighbor_count=5,
    )
    found = match_client.find_neighbors(
        request=aiplatform_v1.FindNeighborsRequest(
            index_endpoint=endpoint, deployed_index_id=fake.deployed_index_id, queries=[query]
        )
    )
    assert [n.datapoint.datapoint_id for n in found.nearest_neighbors[0].neighbors] == ["1"]

    index_client.remove_datapoints(
        request=aiplatform_v1.RemoveDatapointsRequest(index=index_name, datapoint_ids=["1"])
    )
    assert set(fake.datapoints) == {"2", "3"}


@pytest.mark.parametrize(
    ("call", "body", "words"),
    [
        ("findNeighbors", {"deployedIndexId": "portality_chunks", "queries": [
            {"datapoint": {"featureVector": [1, 0, 0, 0]}, "neighbourCount": 3}]}, "neighbourCount"),
        ("upsertDatapoints", {"datapoints": [
            {"datapointId": "1", "featureVector": [1, 0, 0, 0], "restrict": []}]}, "restrict"),
        ("findNeighbors", {"deployedIndexId": "portality_chunks", "queries": [
            {"datapoint": {"featureVector": "1,0,0,0"}}]}, "featureVector"),
    ],
)  # fmt: skip
def test_what_the_real_api_refuses_the_fake_refuses(fake, tmp_path, call, body, words):
    index_client, _ = _google_clients(fake, tmp_path)
    token = index_client._transport._credentials  # a real token from the fake's endpoint
    from google.auth.transport.requests import Request

    token.refresh(Request())
    base = f"{fake.url}/v1/projects/{fake.project}/locations/{fake.location}"
    target = (
        f"{base}/indexEndpoints/{fake.index_endpoint}:{call}"
        if call == "findNeighbors"
        else f"{base}/indexes/{fake.index}:{call}"
    )
    answer = httpx.post(
        target,
        content=json.dumps(body),
        headers={"Authorization": f"Bearer {token.token}", "Content-Type": "application/json"},
    )
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["status"] == "INVALID_ARGUMENT" and words in error["message"]
    assert error["message"].startswith("Invalid JSON payload received.")
